/** Calls (calls.ts): eth_call's reverts and eth_estimateGas. */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

import { deploy, send, word } from '../../test/helpers';
import { Machine } from '../evm/machine';
import { FlatStateManager } from '../state/flatState';
import { Chain } from './chain';

const COUNTER_INCREMENT = '0xd09de08a';

describe('Calls', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
  });

  test('eth_call reverts carry the decoded reason and the raw data', async () => {
    const reverter = await deploy(chain, 'Reverter');
    await expect(
      chain.calls.call({ to: reverter, data: hexToBytes('0x5b2dd100') }, chain.headNumber),
    ).rejects.toMatchObject({
      kind: 'executionReverted',
      message: 'execution reverted: nope',
    });
    await expect(
      chain.calls.call({ to: reverter, data: hexToBytes('0x33fe3fbd') }, chain.headNumber),
    ).rejects.toMatchObject({
      message: 'execution reverted: arithmetic underflow or overflow',
    });
    const custom = chain.calls.call({ to: reverter, data: hexToBytes('0x0e64d54c') }, chain.headNumber);
    await expect(custom).rejects.toMatchObject({ message: 'execution reverted' });
    await custom.catch((e: { data: Uint8Array }) => {
      expect(bytesToHex(e.data)).toBe(`0xcb362b34${bytesToHex(word(42n)).slice(2)}`);
    });
  });

  test('estimateGas finds a limit the transaction succeeds with', async () => {
    const counter = await deploy(chain, 'Counter');
    const { gas } = await chain.calls.estimateGas(
      { from: chain.accounts[0].address, to: counter, data: hexToBytes(COUNTER_INCREMENT) },
      chain.headNumber,
    );
    const hash = await send(chain, 0, { to: counter, data: hexToBytes(COUNTER_INCREMENT), gasLimit: gas });
    const { receipt } = (await chain.reads.getReceipt(hash))!;
    expect(receipt.status).toBe(1);
    expect(gas).toBeGreaterThanOrEqual(receipt.gasUsed);
    expect(gas).toBeLessThan((receipt.gasUsed * 110n) / 100n + 3_000n);
  });

  test("estimateGas's tries read the state once between them", async () => {
    const counter = await deploy(chain, 'Counter');
    const req = { from: chain.accounts[0].address, to: counter, data: hexToBytes(COUNTER_INCREMENT) };
    await send(chain, 0, { ...req, gasLimit: 100_000n }); // a count in its slot, which the tries read
    const runs = jest.spyOn(Machine.prototype, 'callMessage');
    const reads = jest.spyOn(FlatStateManager.prototype, 'getStorage');
    try {
      await chain.calls.estimateGas(req, chain.headNumber);
      // The first try, the optimistic one, then bisection: each reads the counter's slot, the store once.
      expect(runs.mock.calls.length).toBeGreaterThan(2);
      expect(reads.mock.calls.filter(([address]) => bytesToHex(address.bytes) === bytesToHex(counter))).toHaveLength(1);
    } finally {
      runs.mockRestore();
      reads.mockRestore();
    }
  });

  test('a call on the state a replayed pre-Byzantium block started from sees that state, not the replay', async () => {
    // A pre-Byzantium receipt holds the state root after its transaction: the replay flushes its writes
    // into the scratch VM's trie, whose root must go back to the block's parent at the end.
    const old = await Chain.create({ hardfork: 'spuriousDragon', workers: 0 });
    try {
      // Stores the word it is sent; returns the stored word when called without data.
      const runtime =
        '36600f57' + // CALLDATASIZE PUSH1 15 JUMPI
        '600054600052' + // PUSH1 0 SLOAD PUSH1 0 MSTORE
        '60206000f3' + // PUSH1 32 PUSH1 0 RETURN
        '5b600035600055' + // 15: JUMPDEST PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE
        '00'; // STOP
      // PUSH1 23 DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN: returns the 23 bytes after its own 11
      const code = hexToBytes(`0x601780600b6000396000f3${runtime}`);
      const created = await send(old, 0, { type: 0, data: code, gasLimit: 100_000n });
      const store = (await old.reads.getReceipt(created))!.receipt.contractAddress!;
      await send(old, 0, { type: 0, to: store, data: word(7n) });
      const parent = old.headNumber;
      await send(old, 0, { type: 0, to: store, data: word(9n) });
      expect(await old.traces.traceBlock(old.headNumber, {})).toHaveLength(1);
      const stored = async (n: bigint) => (await old.calls.call({ to: store }, n)).returnValue;
      expect(bytesToHex(await stored(parent))).toBe(bytesToHex(word(7n)));
      expect(bytesToHex(await stored(old.headNumber))).toBe(bytesToHex(word(9n)));
    } finally {
      await old.close();
    }
  });
});
