/** The miner (miner.ts): blocks built, committed and previewed, in each mining mode. */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';
import { deploy, send, signedTx, word } from '../../test/helpers';
import { Chain } from './chain';

import type { Receipt } from '../types';

const ETH = 10n ** 18n;
const COUNTER_INCREMENT = '0xd09de08a';

function bloomOf(receipts: Receipt[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const r of receipts) {
    for (const log of r.logs) {
      for (const item of [log.address, ...log.topics]) {
        const h = keccak256(item);
        for (let i = 0; i < 6; i += 2) {
          const bit = ((h[i] << 8) | h[i + 1]) & 2047;
          bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
        }
      }
    }
  }
  return bloom;
}

describe('Miner', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
  });

  test('the pending block previewed twice is the same block, and a block replayed twice counts the same', async () => {
    const manual = await Chain.create({ mining: { mode: 'manual' } });
    try {
      const to = manual.accounts[1].address;
      await manual.txs.submit(await signedTx(manual, 0, { nonce: 0n, to, value: 1n }));
      await manual.txs.submit(await signedTx(manual, 0, { nonce: 1n, to, value: 1n }));
      const first = await manual.miner.pendingBlock();
      const second = await manual.miner.pendingBlock();
      expect(second.block.transactions).toHaveLength(2);
      expect(second.block.hash()).toEqual(first.block.hash());
      await manual.mine();
      const once = await manual.lines.blockLineCounts(1n);
      const again = await manual.lines.blockLineCounts(1n);
      expect(once?.added).toHaveLength(2);
      expect(again).toEqual(once);
    } finally {
      await manual.close();
    }
  });

  test('automine mines one block per transfer with a receipt', async () => {
    const to = chain.accounts[1].address;
    const hash = await send(chain, 0, { to, value: 5n, gasLimit: 21_000n });
    expect(chain.headNumber).toBe(1n);
    const found = await chain.reads.getReceipt(hash);
    expect(found?.receipt).toMatchObject({ status: 1, gasUsed: 21_000n, cumulativeGasUsed: 21_000n });
    expect(found?.block.header.number).toBe(1n);
    expect((await chain.reads.getAccount(to, 1n)).balance).toBe(10_000n * ETH + 5n);
    expect((await chain.reads.getAccount(to, 0n)).balance).toBe(10_000n * ETH);
    const tx = await chain.reads.getTransaction(hash);
    expect(bytesToHex(tx?.sender as Uint8Array)).toBe(bytesToHex(chain.accounts[0].address));
  });

  test('block roots equal an independent trie computation over the same data', async () => {
    const counter = await deploy(chain, 'Counter');
    // Two transactions in one block, one of them with a log.
    chain.miner.setMining({ mode: 'manual' });
    await send(chain, 0, { to: counter, data: hexToBytes(COUNTER_INCREMENT) });
    await send(chain, 1, { to: chain.accounts[3].address, value: 7n, gasLimit: 21_000n });
    const block = await chain.mine();
    expect(block.transactions).toHaveLength(2);
    const receipts = (await chain.reads.getReceipts(block.header.number)) as Receipt[];
    expect(receipts[0].logs).toHaveLength(1);

    const txTrie = new MerklePatriciaTrie();
    for (const [i, tx] of block.transactions.entries()) await txTrie.put(RLP.encode(i), tx.serialize());
    expect(bytesToHex(txTrie.root())).toBe(bytesToHex(block.header.transactionsTrie));

    const receiptTrie = new MerklePatriciaTrie();
    for (const [i, r] of receipts.entries()) {
      const body = RLP.encode([
        bigIntToUnpaddedBytes(BigInt(r.status)),
        bigIntToUnpaddedBytes(r.cumulativeGasUsed),
        bloomOf([r]),
        r.logs.map((l) => [l.address, l.topics, l.data]),
      ]);
      const encoded = r.type === 0 ? body : new Uint8Array([r.type, ...body]);
      await receiptTrie.put(RLP.encode(i), encoded);
    }
    expect(bytesToHex(receiptTrie.root())).toBe(bytesToHex(block.header.receiptTrie));
    expect(bytesToHex(bloomOf(receipts))).toBe(bytesToHex(block.header.logsBloom));

    // Storage: the counter's slot 0, and what every block wrote to the system contracts: EIP-4788
    // its timestamp (the beacon root, zero, is no entry), EIP-2935 its parent's hash; the request
    // queues stay empty.
    const slots = new Map<string, [Uint8Array, Uint8Array][]>();
    const value = await chain.reads.getStorage(counter, new Uint8Array(32), block.header.number);
    slots.set(bytesToHex(counter), [[new Uint8Array(32), value]]);
    const beaconRoots: [Uint8Array, Uint8Array][] = [];
    const history: [Uint8Array, Uint8Array][] = [];
    for (let n = 1n; n <= block.header.number; n++) {
      const b = (await chain.reads.getBlockByNumber(n))!;
      beaconRoots.push([word(b.header.timestamp % 8191n), word(b.header.timestamp)]);
      history.push([word(n - 1n), b.header.parentHash]);
    }
    slots.set('0x000f3df6d732807ef1319fb7b8bb8522d0beac02', beaconRoots);
    slots.set('0x0000f90827f1c53a10cb7a02335b175320002935', history);
    const systemContracts = [
      '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02',
      '0x0000F90827F1C53a10cb7A02335B175320002935',
      '0x00000961Ef480Eb55e80D19ad83579A64c007002',
      '0x0000BBdDc7CE488642fb579F8B00f3a590007251',
      // The predeploys (config/predeploys.ts): the CREATE2 deployer, Multicall3, Permit2, Safe's factory.
      '0x4e59b44847b379578588920cA78FbF26c0B4956C',
      '0xcA11bde05977b3631167028862bE2a173976CA11',
      '0x000000000022D473030F116dDEE9F6B43aC78BA3',
      '0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7',
    ].map((a) => hexToBytes(a as `0x${string}`));

    // State: every account that exists (dev accounts, the fee recipient, the contract, the system contracts and predeploys).
    const stateTrie = new MerklePatriciaTrie();
    const addresses = [...chain.accounts.map((a) => a.address), new Uint8Array(20), counter, ...systemContracts];
    for (const address of addresses) {
      const a = await chain.reads.getAccount(address, block.header.number);
      let storageRoot = KECCAK256_RLP;
      const entries = slots.get(bytesToHex(address)) ?? [];
      if (entries.length > 0) {
        const storage = new MerklePatriciaTrie();
        for (const [slot, v] of entries)
          await storage.put(keccak256(slot), RLP.encode(bigIntToUnpaddedBytes(bytesToBigInt(v))));
        storageRoot = storage.root();
      }
      expect(bytesToHex(storageRoot)).toBe(bytesToHex(a.storageRoot));
      const rlp = RLP.encode([
        bigIntToUnpaddedBytes(a.nonce),
        bigIntToUnpaddedBytes(a.balance),
        storageRoot,
        a.codeHash,
      ]);
      await stateTrie.put(keccak256(address), rlp);
    }
    expect(bytesToHex(stateTrie.root())).toBe(bytesToHex(block.header.stateRoot));
  });

  test('empty blocks leave nothing behind in the EVM journal (it grew by two entries a block)', async () => {
    const journal = (chain as unknown as { head: { vm: { evm: { journal: { journalDiff: unknown[] } } } } }).head.vm.evm
      .journal;
    for (let i = 0; i < 50; i++) await chain.mine();
    expect(chain.headNumber).toBe(50n);
    expect(journal.journalDiff.length).toBeLessThanOrEqual(1);
  });

  test('manual mining builds blocks only on request', async () => {
    chain.miner.setMining({ mode: 'manual' });
    await send(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
    await send(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
    expect(chain.headNumber).toBe(0n);
    expect(chain.reads.poolSize).toBe(2);
    const block = await chain.mine();
    expect(block.transactions).toHaveLength(2);
    expect(chain.reads.poolSize).toBe(0);
  });

  test('interval mining mines pending transactions together', async () => {
    chain.miner.setMining({ mode: 'manual' });
    await send(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
    await send(chain, 1, { to: chain.accounts[1].address, gasLimit: 21_000n });
    const mined = new Promise<number>((resolve) => chain.once('block', (b) => resolve(b.transactions.length)));
    chain.miner.setMining({ mode: 'interval', intervalMs: 20 });
    expect(await mined).toBe(2);
    chain.miner.setMining({ mode: 'manual' });
  });

  test('transactions that do not fit the block gas limit wait for the next block', async () => {
    const small = await Chain.create({ gasLimit: 50_000n, mining: { mode: 'manual' } });
    try {
      await send(small, 0, { to: small.accounts[1].address, gasLimit: 30_000n });
      await send(small, 1, { to: small.accounts[1].address, gasLimit: 30_000n });
      expect((await small.mine()).transactions).toHaveLength(1);
      expect((await small.mine()).transactions).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});
