/** Reads (reads.ts): state at past blocks and the log index. */
import { bytesToBigInt, hexToBytes } from '@ethereumjs/util';

import { calldata, deploy, send } from '../../test/helpers';
import { Chain } from './chain';

const COUNTER_COUNT = '0x06661abd';
const COUNTER_SET = '0xd14e62b8';
const COUNTER_INCREMENT = '0xd09de08a';

describe('Reads', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
  });

  test("a deployed contract's storage is readable at the deploying block and absent before it", async () => {
    const counter = await deploy(chain, 'Counter');
    const deployedAt = chain.headNumber;
    await send(chain, 0, { to: counter, data: calldata(COUNTER_SET, 42n) });
    const slot0 = new Uint8Array(32);
    expect(bytesToBigInt(await chain.reads.getStorage(counter, slot0, chain.headNumber))).toBe(42n);
    expect(bytesToBigInt(await chain.reads.getStorage(counter, slot0, deployedAt))).toBe(0n);
    expect((await chain.reads.getCode(counter, deployedAt)).length).toBeGreaterThan(0);
    expect((await chain.reads.getCode(counter, deployedAt - 1n)).length).toBe(0);
    const call = await chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, chain.headNumber);
    expect(bytesToBigInt(call.returnValue)).toBe(42n);
    const before = await chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, deployedAt);
    expect(bytesToBigInt(before.returnValue)).toBe(0n);
  });

  test('logs are found through the index by address and by topic', async () => {
    const counter = await deploy(chain, 'Counter');
    await send(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
    for (let i = 0; i < 3; i++) await send(chain, 0, { to: counter, data: hexToBytes(COUNTER_INCREMENT) });
    const all = await chain.reads.getLogs({ fromBlock: 0n, toBlock: chain.headNumber });
    expect(all).toHaveLength(3);
    const byAddress = await chain.reads.getLogs({ fromBlock: 0n, toBlock: chain.headNumber, addresses: [counter] });
    expect(byAddress.map((l) => bytesToBigInt(l.data))).toEqual([1n, 2n, 3n]);
    const topic = all[0].topics[0];
    expect(await chain.reads.getLogs({ fromBlock: 0n, toBlock: chain.headNumber, topics: [[topic]] })).toHaveLength(3);
    expect(
      await chain.reads.getLogs({ fromBlock: 0n, toBlock: chain.headNumber, topics: [[new Uint8Array(32)]] }),
    ).toHaveLength(0);
    expect(
      await chain.reads.getLogs({ fromBlock: 0n, toBlock: chain.headNumber, addresses: [chain.accounts[0].address] }),
    ).toHaveLength(0);
    expect(await chain.reads.getLogs({ fromBlock: all[1].blockNumber, toBlock: all[1].blockNumber })).toHaveLength(1);
  });

  test('a log query over the result limit fails', async () => {
    const limited = await Chain.create({ maxLogResults: 2 });
    try {
      const counter = await deploy(limited, 'Counter');
      for (let i = 0; i < 3; i++) await send(limited, 0, { to: counter, data: hexToBytes(COUNTER_INCREMENT) });
      await expect(limited.reads.getLogs({ fromBlock: 0n, toBlock: limited.headNumber })).rejects.toThrow(
        'query returned more than 2 results',
      );
    } finally {
      await limited.close();
    }
  });
});
