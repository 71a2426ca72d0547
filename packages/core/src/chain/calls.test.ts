/** Calls (calls.ts): eth_call's reverts and eth_estimateGas. */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

import { deploy, send, word } from '../../test/helpers';
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
});
