/**
 * Admission: how a transaction enters the chain. A signed transaction is decoded (each malformed
 * field a typed refusal), validated against the head state and the pool as geth's pool validates it,
 * judged by the line gate, and added to the pool; with automine, the block that includes it is mined
 * before the submitter hears back. Submission decides a transaction's verdict once: when the block
 * about to be built runs it on exactly the pending state, that run is its RPC-stage check, and the
 * block is kept or thrown away on the verdict read from it.
 *
 * Also here: the node signing for its dev accounts and for impersonated addresses (eth_sendTransaction),
 * and the minimum fee cap (anvil_setMinGasPrice).
 */
import { createBlob4844TxFromSerializedNetworkWrapper, createTxFromRLP, TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToHex, concatBytes, setLengthLeft } from '@ethereumjs/util';
import { secp256k1 } from 'ethereum-cryptography/secp256k1';

import type { DevAccount } from '../config/accounts';
import {
  BlobFeeCapTooLowError,
  BundleError,
  ChainIdMismatchError,
  FeeCapTooLowError,
  GasLimitExceededError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  InvalidArgumentError,
  InvalidSenderError,
  InvalidTransactionError,
  NonceTooLowError,
  SequencerRuleError,
  TipAboveFeeCapError,
  TxTypeNotSupportedError,
  UnderpricedError,
  UnknownAccountError,
} from '../errors';
import { blobGasOf } from '../exec/blockBuilder';
import { intrinsicGas } from '../pool/intrinsicGas';
import { putPoolRow } from '../pool/poolRows';
import { ethereumjsReason, impersonationKey, peekTransaction, senderOf, withSender } from '../pool/txCodec';
import { bundleHash, uuidBytes } from '../pool/bundlePool';
import type { ForcedOutcome } from '../pool/forcedQueue';
import { decodeExtraData } from '../pool/profitability';
import { maxFeeOf, maxTipOf } from '../pool/txPool';
import type { PoolTx } from '../pool/txPool';
import type { ChainHead } from './head';
import type { LineGate } from './lineGate';
import type { Miner } from './miner';

/** One entry of linea_sendForcedRawTransaction's list, as given. */
export interface ForcedItem {
  number?: number;
  transaction?: Uint8Array;
  /** Hex or decimal, as Java's Long.decode reads it. */
  deadlineBlockNumber?: string;
}

/** linea_sendBundle's params (BundleParameter), parsed. */
export interface BundleRequest {
  txs: Uint8Array[];
  blockNumber: bigint;
  minTimestamp?: number;
  maxTimestamp?: number;
  revertingTxHashes?: Uint8Array[];
  replacementUUID?: string;
}

export class Admission {
  /** Transactions below this fee cap are refused (anvil_setMinGasPrice); 0 by default. */
  private minGasPrice = 0n;
  /** linea_sendBundle requests of the last minute (params to when they came), at most 1,000. */
  private readonly seenBundleRequests = new Map<string, number>();
  /** Whether a sender must be able to pay for a transaction for the pool to take it (Anvil's --disable-pool-balance-checks). */
  balanceChecks = true;
  /** Addresses eth_sendTransaction may send from without a key (anvil_impersonateAccount). */
  private readonly impersonated = new Set<string>();
  /** eth_sendTransaction may send from any address without its key (anvil_autoImpersonateAccount). */
  autoImpersonate = false;

  constructor(
    private readonly head: ChainHead,
    private readonly lines: LineGate,
    private readonly miner: Miner,
    private readonly accounts: readonly DevAccount[],
  ) {}

  /** Decodes and submits a signed transaction; returns its hash once accepted (and mined, with automine). */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const tx = this.decodeTransaction(raw);
    return this.submit(tx);
  }

  /**
   * Decodes a raw transaction. The checks ethereumjs would make while constructing it (chain id,
   * fee cap against tip, the EIP-7825 gas cap, supported type) are made first on the raw fields, so
   * each gets its own typed error.
   */
  decodeTransaction(raw: Uint8Array): TypedTransaction {
    const fields = peekTransaction(raw);
    const common = this.head.vm.common;
    const eip = [undefined, 2930, 1559, 4844, 7702][fields.type];
    if (fields.type !== 0 && (eip === undefined || !common.isActivatedEIP(eip)))
      throw new TxTypeNotSupportedError(fields.type);
    const chainId = this.head.common.chainId();
    if (fields.chainId !== undefined && fields.chainId !== chainId) {
      throw new ChainIdMismatchError(chainId, fields.chainId);
    }
    // A blob transaction is sent with its blobs, commitments and proofs (the network form), which
    // are checked here; blocks and the pool keep the transaction without them.
    if (fields.type === TransactionType.BlobEIP4844 && !fields.sidecar)
      throw new InvalidTransactionError('blob transaction without blobs: send the network form with its sidecar');
    return this.constructTransaction(fields, () =>
      fields.sidecar ? createBlob4844TxFromSerializedNetworkWrapper(raw, { common }) : createTxFromRLP(raw, { common }),
    );
  }

  /**
   * Constructs a transaction (decoded, or built from eth_sendTransaction's fields) by `make`. The
   * checks ethereumjs makes while constructing one (fee cap against tip, the gas caps) are made
   * first on `fields`, so each gets its own typed error; any other refusal of ethereumjs's is an
   * invalid transaction (init code too large, say), never an internal error.
   */
  constructTransaction<T>(fields: { gasLimit: bigint; maxFee: bigint; maxTip: bigint }, make: () => T): T {
    if (fields.maxTip > fields.maxFee) throw new TipAboveFeeCapError(undefined, fields.maxTip, fields.maxFee);
    this.checkGasLimit(fields.gasLimit);
    try {
      return make();
    } catch (e) {
      throw new InvalidTransactionError(ethereumjsReason(e as Error));
    }
  }

  /** The block gas limit, and the EIP-7825 per-transaction cap where active. */
  private checkGasLimit(gasLimit: bigint): void {
    const { gasLimit: blockGasLimit, vm } = this.head;
    if (gasLimit > blockGasLimit) throw new GasLimitExceededError(gasLimit, blockGasLimit);
    if (vm.common.isActivatedEIP(7825)) {
      const cap = vm.common.param('maxTransactionGasLimit');
      if (gasLimit > cap) throw new GasLimitExceededError(gasLimit, cap, 'transaction gas limit cap');
    }
  }

  /** The sender a signed transaction was signed by; InvalidSenderError when the signature does not hold. */
  recoverSender(tx: TypedTransaction): Uint8Array {
    try {
      if (!tx.isSigned() || !tx.verifySignature()) throw new InvalidSenderError();
      return senderOf(tx);
    } catch {
      throw new InvalidSenderError();
    }
  }

  // ---------------------------------------------------------------- sending as the node

  /** Whether the node can send from `from`: a dev account, or an impersonated address. */
  canSendFrom(from: Uint8Array): boolean {
    const hex = bytesToHex(from);
    return (
      this.autoImpersonate || this.impersonated.has(hex) || this.accounts.some((a) => bytesToHex(a.address) === hex)
    );
  }

  /**
   * Signs a transaction for `from`: with its key for a dev account; for an impersonated address
   * with a stand-in key, the sender being `from` whatever the signature says. Undefined when the
   * node cannot send from `from`.
   */
  signAs(tx: TypedTransaction, from: Uint8Array): TypedTransaction | undefined {
    const key = this.keyOf(from);
    if (key !== undefined) return tx.sign(key);
    if (!this.autoImpersonate && !this.impersonated.has(bytesToHex(from))) return undefined;
    return withSender(tx.sign(impersonationKey(from)), from);
  }

  /** A dev account's private key; undefined for any other address (an impersonated one has none). */
  keyOf(address: Uint8Array): Uint8Array | undefined {
    const hex = bytesToHex(address);
    return this.accounts.find((a) => bytesToHex(a.address) === hex)?.privateKey;
  }

  /**
   * Signs a 32-byte digest with the key of dev account `from` (eth_sign, personal_sign,
   * eth_signTypedData_v4): r, s and v (27 or 28), 65 bytes, deterministic (RFC 6979) and low-s, as
   * Anvil's signer; undefined when the node holds no key for `from` (an impersonated address has none).
   */
  signDigest(from: Uint8Array, digest: Uint8Array): Uint8Array | undefined {
    const key = this.keyOf(from);
    if (key === undefined) return undefined;
    const { r, s, recovery } = secp256k1.sign(digest, key);
    return concatBytes(
      setLengthLeft(bigIntToBytes(r), 32),
      setLengthLeft(bigIntToBytes(s), 32),
      Uint8Array.of(27 + recovery),
    );
  }

  /** eth_sendTransaction may send from `address` without its key (anvil_impersonateAccount). */
  impersonate(address: Uint8Array): void {
    this.impersonated.add(bytesToHex(address));
  }

  stopImpersonating(address: Uint8Array): void {
    this.impersonated.delete(bytesToHex(address));
  }

  /** Transactions whose fee cap is below `price` are refused from now on (anvil_setMinGasPrice). */
  setMinGasPrice(price: bigint): Promise<void> {
    return this.head.exclusive(async () => {
      this.minGasPrice = price;
    });
  }

  /**
   * linea_setExtraData (SEQ/rpc/methods/LineaSetExtraData.java): the pricing of version-1 extra data
   * (fixed cost, variable cost, L1 gas price) for profitability and for the blocks built from now on.
   */
  setExtraData(data: Uint8Array): Promise<void> {
    return this.head.exclusive(async () => {
      const rules = this.head.rules;
      if (rules === undefined)
        throw new InvalidArgumentError(
          "linea_setExtraData prices Linea's sequencer rules, which are off (--sequencer-rules)",
        );
      const pricing = decodeExtraData(data);
      if ('error' in pricing) throw new InvalidArgumentError(pricing.error);
      rules.pricing = pricing;
    });
  }

  /**
   * linea_sendBundle (SEQ/rpc/methods/LineaSendBundle.java): checks the bundle in the endpoint's
   * order and with its words, then keeps it for its block; answers its hash. `requestKey` (the
   * request's params) recognises the same request sent again within a minute.
   */
  sendBundle(req: BundleRequest, requestKey: string): Promise<Uint8Array> {
    return this.head.exclusive(async () => {
      const { head } = this;
      const now = head.clock.now();
      for (const [key, at] of this.seenBundleRequests) if (now - at > 60_000) this.seenBundleRequests.delete(key);
      const seen = this.seenBundleRequests.get(requestKey);
      if (seen !== undefined) throw new BundleError(`request already seen PT${(now - seen) / 1000}S ago`);
      if (this.seenBundleRequests.size >= 1_000)
        this.seenBundleRequests.delete(this.seenBundleRequests.keys().next().value!);
      this.seenBundleRequests.set(requestKey, now);
      if (req.blockNumber <= head.number)
        throw new BundleError(
          `Bundle block number ${req.blockNumber} is not greater than current chain head block number ${head.number}`,
        );
      const nowSeconds = head.clock.nowSeconds();
      if (req.maxTimestamp !== undefined && BigInt(req.maxTimestamp) < nowSeconds)
        throw new BundleError(
          `Bundle max timestamp ${req.maxTimestamp} is in the past, current timestamp is ${nowSeconds}`,
        );
      if (req.txs.length === 0 && req.replacementUUID === undefined)
        throw new BundleError('Malformed bundle, no bundle transactions present');
      const uuid = req.replacementUUID === undefined ? undefined : uuidBytes(req.replacementUUID);
      if (req.replacementUUID !== undefined && uuid === undefined)
        throw new BundleError(`Invalid UUID string: ${req.replacementUUID}`);
      const txs: PoolTx[] = [];
      const hashes = new Set<string>();
      for (const [i, raw] of req.txs.entries()) {
        let tx: TypedTransaction;
        let sender: Uint8Array;
        try {
          tx = this.decodeTransaction(raw);
          sender = this.recoverSender(tx);
        } catch {
          // Linea's words, and the index of the transaction (Linea names none).
          throw new BundleError(`Invalid raw transaction hex (transaction ${i})`);
        }
        const hash = tx.hash();
        if (hashes.has(bytesToHex(hash)))
          throw new BundleError(
            `Invalid transaction in bundle: hash ${bytesToHex(hash)}, reason: a duplicate (transaction ${i})`,
          );
        hashes.add(bytesToHex(hash));
        const reason = this.lines.deniedReason(tx, sender) ?? head.rules?.bundleRefusal(tx);
        if (reason !== undefined)
          throw new BundleError(`Invalid transaction in bundle: hash ${bytesToHex(hash)}, reason: ${reason}`);
        txs.push({ tx, hash, sender, nonce: tx.nonce, addedAt: head.clock.now() });
      }
      const hash = bundleHash(req.txs, uuid);
      head.bundles.put({
        hash,
        txs,
        blockNumber: req.blockNumber,
        minTimestamp: req.minTimestamp,
        maxTimestamp: req.maxTimestamp,
        revertible: new Set((req.revertingTxHashes ?? []).map((h) => bytesToHex(h))),
        uuid: req.replacementUUID,
      });
      return hash;
    });
  }

  /**
   * linea_sendForcedRawTransaction (SEQ/rpc/methods/LineaSendForcedRawTransaction.java): queues each
   * forced transaction, with none of the pool's checks; stops at the first that cannot be read, with
   * the endpoint's words for it. Answers one entry per transaction read (and the one refused).
   */
  sendForced(items: ForcedItem[]): Promise<{ number: number; hash?: Uint8Array; error?: string }[]> {
    return this.head.exclusive(async () => {
      const out: { number: number; hash?: Uint8Array; error?: string }[] = [];
      const queued: { number: number; ptx: PoolTx; deadlineBlockNumber: bigint }[] = [];
      for (const [i, item] of items.entries()) {
        const refuse = (number: number, error: string) => out.push({ number, error });
        if (item.number === undefined) {
          refuse(0, `forcedTransactionNumber is required at index ${i}`);
          break;
        }
        if (item.transaction === undefined || item.transaction.length === 0) {
          refuse(item.number, 'Empty transaction data');
          break;
        }
        let tx: TypedTransaction;
        let sender: Uint8Array;
        try {
          tx = this.decodeTransaction(item.transaction);
          sender = this.recoverSender(tx);
        } catch {
          refuse(item.number, 'Failed to decode transaction: Invalid raw transaction hex');
          break;
        }
        if (item.deadlineBlockNumber === undefined) {
          refuse(item.number, 'Deadline block number is required');
          break;
        }
        if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(item.deadlineBlockNumber)) {
          refuse(item.number, `Invalid deadlineBlockNumber format: ${item.deadlineBlockNumber}`);
          break;
        }
        const hash = tx.hash();
        queued.push({
          number: item.number,
          ptx: { tx, hash, sender, nonce: tx.nonce, addedAt: this.head.clock.now() },
          deadlineBlockNumber: BigInt(item.deadlineBlockNumber),
        });
        out.push({ number: item.number, hash });
      }
      this.head.forced.add(queued);
      return out;
    });
  }

  /** linea_getForcedTransactionInclusionStatus: how forced transaction `number` ended; undefined while queued or unknown. */
  forcedOutcome(number: number): ForcedOutcome | undefined {
    return this.head.forced.outcome(number);
  }

  /** linea_cancelBundle: drops the bundle of `uuid`; whether there was one. */
  cancelBundle(uuid: string): Promise<boolean> {
    return this.head.exclusive(async () => {
      const bytes = uuidBytes(uuid);
      if (bytes === undefined) throw new BundleError('malformed linea_cancelBundle json param');
      return this.head.bundles.cancel(bytes);
    });
  }

  /** The minimum fee cap in force. */
  get minimumGasPrice(): bigint {
    return this.minGasPrice;
  }

  // ---------------------------------------------------------------- submission

  /**
   * Validates a signed transaction against the latest state and the pool, runs the RPC-stage line
   * check, and adds it to the pool. With automine, the block that includes it is mined before this
   * returns.
   */
  submit(tx: TypedTransaction, sender?: Uint8Array): Promise<Uint8Array> {
    return this.head.exclusive(() => this.submitLocked(tx, sender ?? this.recoverSender(tx)));
  }

  /**
   * eth_sendTransaction: `build` makes the transaction given the sender's next nonce, which is
   * chosen inside the queue, so parallel sends from one account get consecutive nonces. `unsigned`
   * sends it from `from` whoever that is, as an impersonated address (eth_sendUnsignedTransaction).
   */
  sendAs(
    from: Uint8Array,
    build: (nextNonce: bigint) => Promise<TypedTransaction>,
    unsigned = false,
  ): Promise<Uint8Array> {
    return this.head.exclusive(async () => {
      const tx = await build(await this.head.pendingNonce(from));
      const signed = unsigned ? withSender(tx.sign(impersonationKey(from)), from) : this.signAs(tx, from);
      if (signed === undefined) throw new UnknownAccountError(from);
      return this.submitLocked(signed, from);
    });
  }

  private async submitLocked(tx: TypedTransaction, from: Uint8Array): Promise<Uint8Array> {
    const { head, lines } = this;
    const hash = tx.hash();
    lines.refuseAtOnce(tx, from, hash);
    await this.validate(tx, from);
    const ptx: PoolTx = { tx, hash, sender: from, nonce: tx.nonce, addedAt: head.clock.now() };
    await lines.refuseForced(ptx);
    const stateNonce = (await head.account(from)).nonce;
    const automine = this.miner.mode.mode === 'auto';
    // With automine and an empty pool, the block about to be built runs the transaction on exactly
    // the pending state, so its count is the RPC-stage verdict: the transaction runs once, not twice.
    const checkInBlock = lines.checksAtRpc && automine && head.pool.size === 0 && tx.nonce === stateNonce;
    if (lines.checksAtRpc && !checkInBlock) await lines.checkAtRpc(ptx);
    head.pool.add(ptx);
    // With the check in the block, the transaction is announced once the check has passed.
    if (!checkInBlock) head.events.emit('pendingTransaction', ptx.hash);
    if (automine && head.pool.nextNonce(from, stateNonce) > ptx.nonce) {
      try {
        await this.mineWith(ptx, checkInBlock);
      } catch (e) {
        // Not acknowledged: it must not be mined later either.
        head.pool.remove(ptx.hash);
        throw e;
      }
    } else {
      await head.store.write([putPoolRow(ptx)]);
    }
    return ptx.hash;
  }

  /**
   * Automine: builds the next block with `ptx` just added to the pool, and keeps it unless it refuses
   * `ptx`: its RPC-stage overflow when the block is its check (`checkInBlock`), or a transaction that
   * could not run at all (EIP-3607: a sender with code), whose sender hears why instead of getting a
   * hash that never gets a receipt.
   */
  private async mineWith(ptx: PoolTx, checkInBlock: boolean): Promise<void> {
    const build = await this.miner.build();
    const overflow = checkInBlock ? this.lines.overflowIn(build, ptx) : undefined;
    if (overflow !== undefined) {
      await this.head.discardBuild();
      this.head.pool.remove(ptx.hash);
      return this.lines.refuseAtRpc(ptx, overflow);
    }
    const failed = build.dropped.find((d) => d.ptx === ptx);
    if (failed !== undefined) {
      await this.head.discardBuild();
      this.head.pool.remove(ptx.hash);
      throw new InvalidTransactionError(ethereumjsReason(failed.error));
    }
    if (checkInBlock) this.head.events.emit('pendingTransaction', ptx.hash);
    await this.miner.commit(build, ptx);
  }

  private async validate(tx: TypedTransaction, from: Uint8Array): Promise<void> {
    const minimum = intrinsicGas(tx);
    if (tx.gasLimit < minimum) throw new IntrinsicGasTooLowError(tx.gasLimit, minimum);
    this.checkGasLimit(tx.gasLimit);
    const maxFee = maxFeeOf(tx);
    if (maxTipOf(tx) > maxFee) throw new TipAboveFeeCapError(from, maxTipOf(tx), maxFee);
    const baseFee = await this.head.nextBaseFee();
    if (maxFee < baseFee) throw new FeeCapTooLowError(from, maxFee, baseFee);
    if (maxFee < this.minGasPrice) throw new UnderpricedError(maxFee, this.minGasPrice);
    // Linea's pool validators, after the protocol's checks and before the account's (as Besu orders them).
    const refusal = this.head.rules?.refusal(tx, from, baseFee);
    if (refusal !== undefined) throw new SequencerRuleError(refusal);
    const account = await this.head.account(from);
    if (tx.nonce < account.nonce) throw new NonceTooLowError(from, tx.nonce, account.nonce);
    // A blob transaction also commits its blob gas at its blob fee cap (EIP-4844), as geth counts;
    // a cap under the minimum blob gas price is refused, one under the current price waits.
    const blobFee = (tx as { maxFeePerBlobGas?: bigint }).maxFeePerBlobGas ?? 0n;
    if (tx.type === TransactionType.BlobEIP4844 && blobFee < 1n) throw new BlobFeeCapTooLowError(blobFee, 1n);
    const cost = tx.gasLimit * maxFee + tx.value + blobGasOf(tx, this.head.vm.common) * blobFee;
    if (this.balanceChecks && account.balance < cost) throw new InsufficientFundsError(from, account.balance, cost);
  }
}
