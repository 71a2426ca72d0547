/** Admission (admission.ts): transaction types, the pool's refusals, nonce gaps. */
import { createBlob4844Tx, createEOACode7702Tx, createLegacyTx } from '@ethereumjs/tx';
import { bytesToBigInt, bytesToHex, eoaCode7702SignAuthorization, hexToBytes } from '@ethereumjs/util';

import { deploy, GWEI, LONDON_AT_GENESIS, rawSigned, send, signedTx } from '../../test/helpers';
import { Chain } from './chain';

const ETH = 10n ** 18n;
const COUNTER_INCREMENT = '0xd09de08a';

describe('Admission', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
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

  test.each([
    ['osaka', 'cell proofs (EIP-7594)'],
    ['cancun', 'blob proofs'],
  ])('%s: a blob transaction sent with its %s is checked, mined and priced', async (hardfork) => {
    // Ethereum's rules: Linea's sequencer refuses blob transactions (sequencerRules.test.ts).
    const forked = await Chain.create({ hardfork, sequencerRules: false });
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
      await expect(chain.txs.submit(tx)).rejects.toThrow(/^nonce too low: address 0x[0-9a-fA-F]{40}, tx: 0 state: 1$/);
    });

    test('insufficient funds for gas * price + value', async () => {
      const tx = await signedTx(chain, 0, { to: chain.accounts[1].address, value: 20_000n * ETH, gasLimit: 21_000n });
      await expect(chain.txs.submit(tx)).rejects.toMatchObject({ kind: 'insufficientFunds' });
      await expect(chain.txs.submit(tx)).rejects.toThrow(
        /^insufficient funds for gas \* price \+ value: address 0x[0-9a-fA-F]{40} have 10000000000000000000000 want 20000000210000000000000$/,
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
});
