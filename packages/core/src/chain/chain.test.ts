import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { createBlob4844Tx, createEOACode7702Tx, createLegacyTx } from '@ethereumjs/tx';
import {
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  eoaCode7702SignAuthorization,
  hexToBytes,
  KECCAK256_RLP,
} from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import {
  artifact,
  calldata,
  deploy,
  FIXTURES,
  GWEI,
  LONDON_AT_GENESIS,
  rawSigned,
  send,
  signedTx,
  word,
} from '../../test/helpers';
import { Chain } from './chain';
import { LineLimits } from '../lines/lineLimits';
import type { Receipt } from '../types';

const ETH = 10n ** 18n;
const COUNTER_COUNT = '0x06661abd';
const COUNTER_SET = '0xd14e62b8';
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

describe('Chain', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
  });

  test('genesis funds the dev accounts and uses the documented defaults', async () => {
    expect(chain.chainId).toBe(31337n);
    expect(chain.hardfork).toBe('osaka');
    expect(chain.headNumber).toBe(0n);
    expect(chain.accounts).toHaveLength(10);
    const genesis = await chain.reads.headBlock();
    expect(genesis.header.gasLimit).toBe(30_000_000n);
    expect(genesis.header.baseFeePerGas).toBe(GWEI);
    expect(genesis.header.transactionsTrie).toEqual(KECCAK256_RLP);
    for (const a of chain.accounts) {
      expect((await chain.reads.getAccount(a.address, 0n)).balance).toBe(10_000n * ETH);
    }
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

  test('legacy, EIP-2930 and EIP-1559 transactions are all accepted', async () => {
    const to = chain.accounts[2].address;
    for (const type of [0, 1, 2] as const) {
      const hash = await send(chain, 0, { to, value: 1n, gasLimit: 21_000n, type });
      expect((await chain.reads.getReceipt(hash))?.receipt.type).toBe(type);
    }
    expect(chain.headNumber).toBe(3n);
  });

  test("an EIP-7702 transaction delegates an account's code and runs it", async () => {
    const counter = await deploy(chain, 'Counter');
    const bob = chain.accounts[1];
    const authorization = eoaCode7702SignAuthorization(
      { chainId: '0x7a69', address: bytesToHex(counter), nonce: '0x0' },
      bob.privateKey,
    );
    const alice = chain.accounts[0];
    const tx = createEOACode7702Tx(
      {
        nonce: await chain.reads.pendingNonce(alice.address),
        to: bob.address,
        data: hexToBytes(COUNTER_INCREMENT),
        gasLimit: 200_000n,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        authorizationList: [authorization],
      },
      { common: chain.common },
    ).sign(alice.privateKey);
    const hash = await chain.txs.sendRawTransaction(tx.serialize());
    expect((await chain.reads.getReceipt(hash))?.receipt).toMatchObject({ status: 1, type: 4 });
    expect(bytesToHex(await chain.reads.getCode(bob.address, chain.headNumber))).toBe(
      `0xef0100${bytesToHex(counter).slice(2)}`,
    );
    expect(bytesToBigInt(await chain.reads.getStorage(bob.address, new Uint8Array(32), chain.headNumber))).toBe(1n);
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
    ].map((a) => hexToBytes(a as `0x${string}`));

    // State: every account that exists (dev accounts, the fee recipient, the contract, the system contracts).
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

  test.each([
    ['osaka', 'cell proofs (EIP-7594)'],
    ['cancun', 'blob proofs'],
  ])('%s: a blob transaction sent with its %s is checked, mined and priced', async (hardfork) => {
    const forked = await Chain.create({ hardfork });
    try {
      const tx = createBlob4844Tx(
        {
          to: forked.accounts[1].address,
          blobsData: ['hello blobs'],
          maxFeePerBlobGas: 10n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: 1n,
          gasLimit: 21_000n,
          chainId: forked.chainId,
        },
        { common: forked.common },
      ).sign(forked.accounts[0].privateKey);
      const wrapper = tx.serializeNetworkWrapper();
      // A proof that does not match its blob is refused, and nothing is mined.
      const proofs = tx.kzgProofs!.map((p, i) => (i === 0 ? `${p.slice(0, -1)}${p.endsWith('0') ? '1' : '0'}` : p));
      const tampered = createBlob4844Tx(
        { ...tx.toJSON(), blobs: tx.blobs, kzgCommitments: tx.kzgCommitments, kzgProofs: proofs } as never,
        { common: forked.common },
      );
      await expect(forked.txs.sendRawTransaction(tampered.serializeNetworkWrapper())).rejects.toMatchObject({
        kind: 'invalidTransaction',
      });
      expect(forked.headNumber).toBe(0n);

      const hash = await forked.txs.sendRawTransaction(wrapper);
      expect(bytesToHex(hash)).toBe(bytesToHex(tx.hash()));
      const mined = await forked.reads.getReceipt(hash);
      expect(mined?.receipt).toMatchObject({ status: 1, type: 3, blobGasUsed: 131_072n, blobGasPrice: 1n });
      const block = await forked.reads.headBlock();
      expect(block.header.blobGasUsed).toBe(131_072n);
      // The block holds the transaction without its blobs (as geth), and it reads back the same.
      expect(bytesToHex(block.transactions[0].serialize())).toBe(bytesToHex(tx.serialize()));
      expect(wrapper.length).toBeGreaterThan(131_072);
      expect(block.serialize().length).toBeLessThan(1_000);
    } finally {
      await forked.close();
    }
  });

  describe('pool rejections', () => {
    test('nonce too low', async () => {
      await send(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
      const tx = await signedTx(chain, 0, { nonce: 0n, to: chain.accounts[1].address, gasLimit: 21_000n });
      await expect(chain.txs.submit(tx)).rejects.toMatchObject({ kind: 'nonceTooLow', txNonce: 0n, stateNonce: 1n });
      await expect(chain.txs.submit(tx)).rejects.toThrow(/^nonce too low: address 0x[0-9a-f]{40}, tx: 0 state: 1$/);
    });

    test('insufficient funds for gas * price + value', async () => {
      const tx = await signedTx(chain, 0, { to: chain.accounts[1].address, value: 20_000n * ETH, gasLimit: 21_000n });
      await expect(chain.txs.submit(tx)).rejects.toMatchObject({ kind: 'insufficientFunds' });
      await expect(chain.txs.submit(tx)).rejects.toThrow(
        /^insufficient funds for gas \* price \+ value: address 0x[0-9a-f]{40} have 10000000000000000000000 want 20000000210000000000000$/,
      );
    });

    test('intrinsic gas too low', async () => {
      const tx = await signedTx(chain, 0, { to: chain.accounts[1].address, gasLimit: 20_999n });
      await expect(chain.txs.submit(tx)).rejects.toThrow('intrinsic gas too low: gas 20999, minimum needed 21000');
    });

    const raw = (f: { chainId?: bigint; tip?: bigint; maxFee?: bigint; gas?: bigint; type?: 2 | 3 }) =>
      rawSigned(chain.accounts[0].privateKey, {
        chainId: f.chainId ?? 31337n,
        tip: f.tip ?? GWEI,
        maxFee: f.maxFee ?? 10n * GWEI,
        gas: f.gas ?? 21_000n,
        to: chain.accounts[1].address,
        type: f.type,
      });

    test('a hand-encoded valid transaction is accepted', async () => {
      const hash = await chain.txs.sendRawTransaction(raw({}));
      expect((await chain.reads.getReceipt(hash))?.receipt.status).toBe(1);
    });

    test('gas limit above the block gas limit', async () => {
      await expect(chain.txs.sendRawTransaction(raw({ gas: 30_000_001n }))).rejects.toThrow(
        'exceeds block gas limit: gas 30000001, limit 30000000',
      );
    });

    test('gas limit above the EIP-7825 transaction cap', async () => {
      await expect(chain.txs.sendRawTransaction(raw({ gas: 16_777_217n }))).rejects.toThrow(
        'exceeds transaction gas limit cap: gas 16777217, limit 16777216',
      );
    });

    test('fee cap below the base fee', async () => {
      const tx = await signedTx(chain, 0, {
        to: chain.accounts[1].address,
        gasLimit: 21_000n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      });
      await expect(chain.txs.submit(tx)).rejects.toMatchObject({ kind: 'feeCapTooLow', maxFeePerGas: 1n });
      await expect(chain.txs.submit(tx)).rejects.toThrow(/^max fee per gas less than block base fee/);
    });

    test('tip above fee cap', async () => {
      await expect(chain.txs.sendRawTransaction(raw({ tip: 3n * GWEI, maxFee: 2n * GWEI }))).rejects.toThrow(
        'max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: 3000000000, maxFeePerGas: 2000000000',
      );
    });

    test('replacement of a pending transaction needs a 10% higher fee', async () => {
      chain.miner.setMining({ mode: 'manual' });
      const to = chain.accounts[1].address;
      await chain.txs.submit(
        await signedTx(chain, 0, {
          nonce: 0n,
          to,
          gasLimit: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        }),
      );
      const cheap = await signedTx(chain, 0, {
        nonce: 0n,
        to,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n * GWEI + 1n,
        maxPriorityFeePerGas: GWEI + 1n,
      });
      await expect(chain.txs.submit(cheap)).rejects.toThrow('replacement transaction underpriced');
      const better = await signedTx(chain, 0, {
        nonce: 0n,
        to,
        value: 2n,
        gasLimit: 21_000n,
        maxFeePerGas: 11n * GWEI,
        maxPriorityFeePerGas: 2n * GWEI,
      });
      const hash = await chain.txs.submit(better);
      expect(chain.reads.poolSize).toBe(1);
      const block = await chain.mine();
      expect(bytesToHex(block.transactions[0].hash())).toBe(bytesToHex(hash));
    });

    test('the same transaction twice is already known', async () => {
      chain.miner.setMining({ mode: 'manual' });
      const tx = await signedTx(chain, 0, { to: chain.accounts[1].address, gasLimit: 21_000n });
      await chain.txs.submit(tx);
      await expect(chain.txs.submit(tx)).rejects.toThrow('already known');
    });

    test('a transaction signed for another chain', async () => {
      await expect(chain.txs.sendRawTransaction(raw({ chainId: 1n }))).rejects.toMatchObject({
        kind: 'chainIdMismatch',
        got: 1n,
        expected: 31337n,
        message: 'invalid chain id for signer: have 1 want 31337',
      });
    });

    test('an unsigned or badly signed transaction', async () => {
      const unsigned = createLegacyTx(
        { to: chain.accounts[1].address, gasLimit: 21_000n, gasPrice: 10n * GWEI },
        { common: chain.common },
      );
      await expect(chain.txs.sendRawTransaction(unsigned.serialize())).rejects.toMatchObject({ kind: 'invalidSender' });
      await expect(chain.txs.sendRawTransaction(hexToBytes('0xdeadbeef'))).rejects.toMatchObject({
        kind: 'invalidTransaction',
      });
    });

    test('a blob transaction whose blob fee cap is under 1 wei is refused, one under the current blob price waits', async () => {
      // Cancun from a genesis whose excess blob gas (10,000,000, less the target, 393,216, for block
      // 1) makes block 1's blob gas price 17 wei (EIP-4844's fake_exponential).
      const genesis = {
        config: {
          chainId: 31337,
          ...LONDON_AT_GENESIS,
          mergeNetsplitBlock: 0,
          terminalTotalDifficulty: 0,
          shanghaiTime: 0,
          cancunTime: 0,
          blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
        },
        excessBlobGas: '0x989680', // 10,000,000
        alloc: Object.fromEntries(
          chain.accounts.slice(0, 2).map((a) => [bytesToHex(a.address), { balance: '0xde0b6b3a7640000' }]),
        ),
      };
      const blobs = await Chain.create({ genesis });
      try {
        expect(await blobs.reads.nextBlobBaseFee()).toBe(17n);
        const blobTx = (maxFeePerBlobGas: bigint, from: number) =>
          createBlob4844Tx(
            {
              to: chain.accounts[2].address,
              blobsData: ['hello blobs'],
              maxFeePerBlobGas,
              maxFeePerGas: 10n * GWEI,
              maxPriorityFeePerGas: 1n,
              gasLimit: 21_000n,
              chainId: 31337n,
            },
            { common: blobs.common },
          )
            .sign(chain.accounts[from].privateKey)
            .serializeNetworkWrapper();
        await expect(blobs.txs.sendRawTransaction(blobTx(0n, 0))).rejects.toThrow(
          'transaction gas price below minimum: blob fee cap 0, minimum needed 1',
        );
        const waiting = await blobs.txs.sendRawTransaction(blobTx(5n, 0));
        expect(await blobs.reads.getReceipt(waiting)).toBeUndefined();
        expect(blobs.reads.poolSize).toBe(1);
        // Another sender's that pays the blob price is mined at it; the first still waits.
        const price = await blobs.reads.nextBlobBaseFee();
        expect(price).toBeGreaterThan(5n);
        const paying = await blobs.txs.sendRawTransaction(blobTx(100n, 1));
        expect((await blobs.reads.getReceipt(paying))?.receipt).toMatchObject({ status: 1, blobGasPrice: price });
        expect(await blobs.reads.getReceipt(waiting)).toBeUndefined();
        expect(blobs.reads.poolSize).toBe(1);
      } finally {
        await blobs.close();
      }
    });

    test('a blob transaction without its blobs is refused', async () => {
      await expect(chain.txs.sendRawTransaction(raw({ type: 3 }))).rejects.toThrow('blob transaction without blobs');
    });
  });

  test('a nonce gap is queued until it is filled', async () => {
    const to = chain.accounts[1].address;
    const later = await signedTx(chain, 0, { nonce: 1n, to, gasLimit: 21_000n });
    await chain.txs.submit(later);
    expect(chain.headNumber).toBe(0n);
    expect(await chain.reads.pendingNonce(chain.accounts[0].address)).toBe(0n);
    await chain.txs.submit(await signedTx(chain, 0, { nonce: 0n, to, gasLimit: 21_000n }));
    expect(chain.headNumber).toBe(1n);
    const block = await chain.reads.headBlock();
    expect(block.transactions.map((t) => t.nonce)).toEqual([0n, 1n]);
    expect(chain.reads.poolSize).toBe(0);
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
      message: 'execution reverted: panic: 0x11',
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

describe('Chain on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-chain-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a restart on the same data dir resumes at the last block with state, receipts and pool', async () => {
    const first = await Chain.create({ dataDir: dir });
    const counter = await deploy(first, 'Counter');
    const hash = await send(first, 0, { to: counter, data: calldata(COUNTER_SET, 7n) });
    first.miner.setMining({ mode: 'manual' });
    const pending = await send(first, 1, { to: first.accounts[2].address, value: 3n, gasLimit: 21_000n });
    const head = first.headNumber;
    const root = (await first.reads.headBlock()).header.stateRoot;
    await first.dev.setFinality({ safe: head, finalized: 1n });
    await first.close();

    const second = await Chain.create({ dataDir: dir, mining: { mode: 'manual' } });
    try {
      expect(second.headNumber).toBe(head);
      expect(await second.reads.resolveNumber({ kind: 'safe' })).toBe(head);
      expect(await second.reads.resolveNumber({ kind: 'finalized' })).toBe(1n);
      expect(bytesToHex((await second.reads.headBlock()).header.stateRoot)).toBe(bytesToHex(root));
      expect(bytesToBigInt(await second.reads.getStorage(counter, new Uint8Array(32), head))).toBe(7n);
      expect((await second.reads.getReceipt(hash))?.receipt.status).toBe(1);
      expect(second.reads.poolSize).toBe(1);
      const block = await second.mine();
      expect(bytesToHex(block.transactions[0].hash())).toBe(bytesToHex(pending));
    } finally {
      await second.close();
    }
  });

  test('a transaction acknowledged under automine but left out of its full block survives a restart', async () => {
    // Three transactions fill a block under these limits (BLOCK_TRANSACTIONS = 3).
    const production = readFileSync(join(FIXTURES, 'limits', 'linea-mainnet.toml'), 'utf8');
    const limits = LineLimits.parse(production.replace(/BLOCK_TRANSACTIONS *= *\d+/, 'BLOCK_TRANSACTIONS = 3'), 'test');
    const first = await Chain.create({ dataDir: dir, lineLimits: limits, mining: { mode: 'manual' } });
    const to = first.accounts[2].address;
    for (let i = 0; i < 4; i++) await send(first, 0, { to, value: 1n, gasLimit: 21_000n });
    first.miner.setMining({ mode: 'auto' });
    const late = await send(first, 0, { to, value: 1n, gasLimit: 21_000n });
    expect(first.headNumber).toBe(1n);
    expect(first.reads.poolSize).toBe(2);
    await first.close();

    const second = await Chain.create({ dataDir: dir, lineLimits: limits, mining: { mode: 'manual' } });
    try {
      expect((await second.reads.getTransaction(late))?.tx.nonce).toBe(4n);
      expect(second.reads.poolSize).toBe(2);
      await second.mine();
      expect((await second.reads.getReceipt(late))?.receipt.status).toBe(1);
    } finally {
      await second.close();
    }
  });

  test('a data dir without total difficulties (written before they were kept) gets them summed once at open', async () => {
    const first = await Chain.create({ dataDir: dir, hardfork: 'london', mining: { mode: 'manual' } });
    for (let i = 0; i < 3; i++) await first.mine();
    const totals = [];
    for (let n = 0n; n <= 3n; n++) totals.push(await first.reads.totalDifficulty(n));
    expect(totals[3]).toBeGreaterThan(totals[1]);
    // The rows as an older version left them: none.
    const kv = (first as unknown as { kv: { batch(ops: unknown[]): Promise<void> } }).kv;
    await kv.batch([0n, 1n, 2n, 3n].map((n) => ({ type: 'del', key: Uint8Array.of(0x64, ...word(n).subarray(24)) })));
    await first.close();
    const second = await Chain.create({ dataDir: dir, mining: { mode: 'manual' } });
    try {
      for (let n = 0n; n <= 3n; n++) expect(await second.reads.totalDifficulty(n)).toBe(totals[Number(n)]);
      const next = await second.mine();
      expect(await second.reads.totalDifficulty(4n)).toBe(totals[3] + next.header.difficulty);
    } finally {
      await second.close();
    }
  });

  test('the chain id and accounts of an existing data dir win over new options', async () => {
    const first = await Chain.create({ dataDir: dir, chainId: 777n, accounts: 3 });
    await first.close();
    const second = await Chain.create({ dataDir: dir, chainId: 999n });
    try {
      expect(second.chainId).toBe(777n);
      expect(second.accounts).toHaveLength(3);
    } finally {
      await second.close();
    }
  });
});

describe('Chain from a genesis file', () => {
  test('the DAO fork: its block moves the DAO accounts\' balances to the refund contract, and it and the nine after carry "dao-hard-fork"', async () => {
    const DAO_ACCOUNT = '0xd4fe7bc31cedb7bfb8a345f31e668033056b2728';
    const REFUND = '0xbf4ed7b27f1d666546e30d74d50d173d20bca754';
    // A contract returning the DAO account's balance: PUSH20 account, BALANCE, MSTORE, RETURN 32.
    const PROBE = '0x00000000000000000000000000000000000000b0';
    const genesis = {
      config: { chainId: 1337, homesteadBlock: 0, daoForkBlock: 2, daoForkSupport: true },
      difficulty: '0x20000',
      gasLimit: '0x1c9c380',
      alloc: {
        [DAO_ACCOUNT]: { balance: '0xde0b6b3a7640000' },
        [PROBE]: { code: `0x73${DAO_ACCOUNT.slice(2)}3160005260206000f3` },
        '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': { balance: '0xde0b6b3a7640000' },
      },
    };
    const source = await Chain.create({ genesis, mining: { mode: 'manual' } });
    const target = await Chain.create({ genesis, mining: { mode: 'manual' } });
    try {
      await source.mine();
      // In the fork block, a transaction reads the balance the drain left: 0, in the block and in its trace.
      const probe = await send(source, 0, { to: hexToBytes(PROBE), gasLimit: 100_000n, gasPrice: GWEI, type: 0 });
      await source.mine();
      const trace = await source.traces.traceTransaction(probe, { tracer: 'callTracer' });
      expect(trace?.tracer === 'callTracer' && bytesToBigInt(trace.frame.output as Uint8Array)).toBe(0n);
      for (let i = 0; i < 10; i++) await source.mine();
      const balance = async (address: string, n: bigint) =>
        (await source.reads.getAccount(hexToBytes(address as `0x${string}`), n)).balance;
      expect(await balance(DAO_ACCOUNT, 1n)).toBe(10n ** 18n);
      expect(await balance(DAO_ACCOUNT, 2n)).toBe(0n);
      expect(await balance(REFUND, 2n)).toBe(10n ** 18n);
      const extra = async (n: bigint) =>
        new TextDecoder().decode((await source.reads.getBlockByNumber(n))!.header.extraData);
      expect([await extra(1n), await extra(2n), await extra(11n), await extra(12n)]).toEqual([
        '',
        'dao-hard-fork',
        'dao-hard-fork',
        '',
      ]);
      // The chain imports into a fresh node: the same blocks.
      const blocks = await source.imports.exportBlocks(0n, 12n);
      await target.imports.importBlocks(concatBytes(...blocks));
      expect(bytesToHex((await target.reads.headBlock()).hash())).toBe(
        bytesToHex((await source.reads.headBlock()).hash()),
      );
      // Without daoForkSupport the chain is the side that did not fork: no drain, no extra data.
      const noFork = await Chain.create({
        genesis: { ...genesis, config: { ...genesis.config, daoForkSupport: false } },
        mining: { mode: 'manual' },
      });
      try {
        for (let i = 0; i < 3; i++) await noFork.mine();
        const dao = await noFork.reads.getAccount(hexToBytes(DAO_ACCOUNT as `0x${string}`), 3n);
        expect(dao.balance).toBe(10n ** 18n);
        expect((await noFork.reads.getBlockByNumber(2n))!.header.extraData).toHaveLength(0);
      } finally {
        await noFork.close();
      }
      // A block in the range without the extra data stops an import, naming the rule.
      const third = RLP.decode(blocks[3]) as unknown as Uint8Array[][];
      third[0][12] = new Uint8Array();
      const other = await Chain.create({ genesis, mining: { mode: 'manual' } });
      try {
        await expect(other.imports.importBlocks(concatBytes(...blocks.slice(0, 3), RLP.encode(third)))).rejects.toThrow(
          "block 3: extraData should be 'dao-hard-fork', got  (hex: 0x)",
        );
        expect(other.headNumber).toBe(2n);
      } finally {
        await other.close();
      }
    } finally {
      await source.close();
      await target.close();
    }
  });

  test("Sepolia's genesis file gives Sepolia's genesis block hash, whatever the case of its field names", async () => {
    const sepolia = JSON.parse(readFileSync(join(FIXTURES, 'chains', 'sepolia.genesis.json'), 'utf8'));
    const hashOf = async (genesis: unknown) => {
      const chain = await Chain.create({ genesis, mining: { mode: 'manual' } });
      try {
        return bytesToHex((await chain.reads.headBlock()).hash());
      } finally {
        await chain.close();
      }
    };
    const SEPOLIA = '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9';
    expect(await hashOf(sepolia)).toBe(SEPOLIA);
    // geth reads "extradata" as extraData; a changed extra data changes the hash, whatever its case.
    const { extraData, ...rest } = sepolia;
    expect(await hashOf({ ...rest, extradata: extraData })).toBe(SEPOLIA);
    expect(await hashOf({ ...rest, EXTRADATA: '0x01' })).not.toBe(SEPOLIA);
  });

  test('alloc balances, code, storage and nonces are in the genesis state', async () => {
    const counter = artifact('Counter');
    const chain = await Chain.create({
      genesis: {
        config: {
          chainId: 4242,
          homesteadBlock: 0,
          eip150Block: 0,
          eip155Block: 0,
          eip158Block: 0,
          byzantiumBlock: 0,
          constantinopleBlock: 0,
          petersburgBlock: 0,
          istanbulBlock: 0,
          berlinBlock: 0,
          londonBlock: 0,
          mergeNetsplitBlock: 0,
          terminalTotalDifficulty: 0,
          shanghaiTime: 0,
          cancunTime: 0,
          pragueTime: 0,
        },
        gasLimit: '0x1c9c380',
        alloc: {
          '0x1000000000000000000000000000000000000001': { balance: '0x100', nonce: '0x5' },
          '0x2000000000000000000000000000000000000002': {
            balance: '0',
            code: counter.deployedBytecode,
            storage: { '0x00': '0x2a' },
          },
        },
      },
    });
    try {
      expect(chain.chainId).toBe(4242n);
      expect(chain.hardfork).toBe('prague');
      const a = await chain.reads.getAccount(hexToBytes('0x1000000000000000000000000000000000000001'), 0n);
      expect(a).toMatchObject({ balance: 256n, nonce: 5n });
      const c = hexToBytes('0x2000000000000000000000000000000000000002');
      const count = await chain.calls.call({ to: c, data: hexToBytes(COUNTER_COUNT) }, 0n);
      expect(bytesToBigInt(count.returnValue)).toBe(42n);
    } finally {
      await chain.close();
    }
  });

  test('fields geth writes as null are as if left out: the base fee is the initial one', async () => {
    const chain = await Chain.create({
      genesis: {
        config: { chainId: 4343, homesteadBlock: 0, byzantiumBlock: 0, berlinBlock: 0, londonBlock: 0 },
        baseFeePerGas: null,
        excessBlobGas: null,
        blobGasUsed: null,
        number: '0x0',
        gasUsed: '0x0',
        parentHash: `0x${'00'.repeat(32)}`,
        alloc: {},
      },
    });
    try {
      expect(chain.hardfork).toBe('london');
      expect((await chain.reads.headBlock()).header.baseFeePerGas).toBe(GWEI);
    } finally {
      await chain.close();
    }
  });
});
