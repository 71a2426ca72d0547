/**
 * Linea's sequencer rules beyond line counts, as its plugins apply them (Consensys/linea-monorepo
 * cb180134, `linea-besu/plugins/linea-sequencer/sequencer/src/main/java/net/consensys/linea`, below
 * SEQ): at submission the pool validators refuse a transaction with their own words, and in block
 * building the selectors leave a transaction for a later block or drop it. The defaults are the
 * values of Linea mainnet's profile (`linea-besu/package/linea-besu/profiles/advanced-mainnet.toml`).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { TransactionType } from '@ethereumjs/tx';
import { equalsBytes } from '@ethereumjs/util';

import {
  compressedSize,
  compressedSizeBound,
  compressorInput,
  encodeExtraData,
  LINEA_MAINNET_PRICING,
  payingGasPrice,
  profitablePriorityFee,
} from './profitability';
import type { Pricing } from './profitability';

export interface SequencerRulesConfig {
  /** Largest calldata (or init code) of a transaction, bytes; undefined: no limit. `--plugin-linea-max-tx-calldata-size` */
  maxTxCalldataSize: number | undefined;
  /** Largest calldata of a block's transactions together, bytes; undefined: no limit. `--plugin-linea-max-block-calldata-size` */
  maxBlockCalldataSize: number | undefined;
  /** Largest gas limit of a transaction. `--plugin-linea-max-tx-gas-limit` */
  maxTxGasLimit: bigint;
  /** Most gas a block's transactions may use together. `--plugin-linea-max-block-gas` */
  maxBlockGas: bigint;
  /** The pricing blocks start with in their extra data (linea_setExtraData changes it). */
  pricing: Pricing;
  /** Profitability margins: at submission, in block building, in linea_estimateGas. `--plugin-linea-tx-pool-min-margin`, `--plugin-linea-min-margin`, `--plugin-linea-estimate-gas-min-margin` */
  txPoolMinMargin: number;
  minMargin: number;
  estimateGasMinMargin: number;
  /** Events that keep a transaction out of blocks (DENIED_LOG_TOPIC). `--plugin-linea-events-deny-list-path` */
  deniedEvents: EventFilter[];
}

/** An event filter: the emitting address, and topics (undefined: any) by position (TransactionEventFilter). */
export interface EventFilter {
  address: Uint8Array;
  topics: (Uint8Array | undefined)[];
}

/**
 * The events deny list's text (LineaTransactionSelectorCliOptions.parseTransactionEventDenyList): a
 * filter a line, `address,topic0,topic1,topic2,topic3`, an empty field for any; empty lines skipped.
 */
export function parseEventFilters(text: string): EventFilter[] {
  const out: EventFilter[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const fields = line.split(',').map((f) => f.trim());
    const hex = /^0x[0-9a-fA-F]*$/;
    if (fields.length !== 5 || fields[0] === '' || !fields.every((f) => f === '' || hex.test(f)))
      throw new Error(
        `Invalid transaction event filter line: ${line}. Expected format: address,topic0,topic1,topic2,topic3`,
      );
    const bytes = (f: string) => Uint8Array.from(Buffer.from(f.slice(2), 'hex'));
    out.push({ address: bytes(fields[0]), topics: fields.slice(1).map((f) => (f === '' ? undefined : bytes(f))) });
  }
  return out;
}

function matches(filter: EventFilter, log: { address: Uint8Array; topics: Uint8Array[] }): boolean {
  if (!equalsBytes(filter.address, log.address)) return false;
  return filter.topics.every((t, i) => t === undefined || (i < log.topics.length && equalsBytes(t, log.topics[i])));
}

/** Linea mainnet's values (advanced-mainnet.toml). */
export const LINEA_MAINNET_RULES: SequencerRulesConfig = {
  maxTxCalldataSize: 60_000,
  maxBlockCalldataSize: 109_000,
  maxTxGasLimit: 24_000_000n,
  maxBlockGas: 55_000_000n,
  pricing: LINEA_MAINNET_PRICING,
  txPoolMinMargin: 0.8,
  minMargin: 1.0,
  estimateGasMinMargin: 1.2,
  deniedEvents: [],
};

/**
 * The recipients the pool refuses: 0x01–0x11 and P256VERIFY's 0x100
 * (SEQ/sequencer/txpoolvalidation/validators/PrecompileAddressValidator.java).
 */
const PRECOMPILE_RECIPIENTS = new Set([...Array.from({ length: 0x11 }, (_, i) => i + 1), 0x100]);

function isPrecompileAddress(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  return PRECOMPILE_RECIPIENTS.has((address[18] << 8) | address[19]);
}

/** A transfer's gas. */
const TRANSFER_GAS = 21_000n;
/**
 * The compressor input of an EIP-1559 transfer with wide fields: the sender's 20 bytes, the type
 * byte, and the RLP list (2-byte header) of a 4-byte chain id, 8-byte nonce and gas, 16-byte fees,
 * the recipient, a 32-byte value, no data and no access list.
 */
const ORDINARY_TX_BYTES = 136;

/** Why a block leaves a transaction out (the selectors' statuses, LineaTransactionSelectionResult). */
export type BlockRuleVerdict =
  /** Kept in the pool for a later block (MaxBlockCallDataTransactionSelector, MaxBlockGasTransactionSelector, ProfitableTransactionSelector). */
  | 'BLOCK_CALLDATA_OVERFLOW'
  | 'TX_TOO_LARGE_FOR_REMAINING_USER_GAS'
  | 'TX_UNPROFITABLE_UPFRONT'
  | 'TX_UNPROFITABLE'
  /** Dropped from the pool (MaxBlockGasTransactionSelector). */
  | 'TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS'
  /** Dropped from the pool (TransactionEventSelector). */
  | 'DENIED_LOG_TOPIC';

export class SequencerRules {
  /** The pricing in force: the extra data of the blocks built from now on. */
  pricing: Pricing;
  /**
   * The transactions priced so far (the sequencer caches sizes by hash too): each one's compressor
   * input, priced at submission and again by the block (before and after it runs), and its
   * compressed size once a verdict needed it.
   */
  private readonly priced = new WeakMap<TypedTransaction, { input: Uint8Array; size?: number }>();

  constructor(
    readonly config: SequencerRulesConfig,
    /** A priority sender's transactions are not priced (the pool's --tx-pool-priority-senders; hasPriority in the plugins). */
    readonly hasPriority: (sender: Uint8Array) => boolean = () => false,
  ) {
    this.pricing = config.pricing;
  }

  /**
   * The pool validators' refusal of `tx`, in their order (LineaTransactionPoolValidatorFactory):
   * the transaction type, a precompile recipient, the gas limit, the calldata size, profitability
   * at the next block's `baseFee` (not for a `priority` sender's). The deny list and the line counts
   * are the line gate's.
   */
  refusal(tx: TypedTransaction, sender: Uint8Array, baseFee: bigint): string | undefined {
    // SEQ/sequencer/txvalidation/TransactionTypeValidation.java (blob transactions off by default).
    if (tx.type === TransactionType.BlobEIP4844) return 'TransactionTypeValidation - BLOB_TX_NOT_ALLOWED';
    const shape = this.bundleRefusal(tx);
    if (shape !== undefined) return shape;
    // SEQ/sequencer/txpoolvalidation/validators/ProfitabilityValidator.java: priced at its gas limit.
    if (!this.hasPriority(sender) && !this.profitable(tx, sender, baseFee, this.config.txPoolMinMargin, tx.gasLimit))
      return `Gas price too low: this transaction needs a priority fee of at least ${this.profitableTip(tx, sender)} wei per gas (linea_estimateGas answers one)`;
    return undefined;
  }

  /**
   * The priority fee per gas that makes `tx` profitable at its gas limit, at the pool's margin and
   * the block's (the higher of the two), so that it is taken and then selected.
   */
  profitableTip(tx: TypedTransaction, sender: Uint8Array): bigint {
    const { txPoolMinMargin, minMargin } = this.config;
    const margin = Math.max(txPoolMinMargin, minMargin);
    return profitablePriorityFee(this.pricing, margin, tx.gasLimit, this.compressedSize(tx, sender));
  }

  /**
   * The priority fee per gas an ordinary transaction needs at the pricing in force: a transfer, the
   * fewest gas (21,000) for the most bytes an unsigned EIP-1559 transfer and its sender take
   * (ORDINARY_TX_BYTES), at the higher of the pool's and the block's margins. Wallets are suggested at
   * least this (eth_maxPriorityFeePerGas, eth_feeHistory), so their default fees are taken.
   */
  ordinaryTip(): bigint {
    const { txPoolMinMargin, minMargin } = this.config;
    const margin = Math.max(txPoolMinMargin, minMargin);
    return profitablePriorityFee(this.pricing, margin, TRANSFER_GAS, compressedSizeBound(ORDINARY_TX_BYTES));
  }

  /**
   * The validators a bundle's transactions meet at submission (LineaSendBundle's validator, the deny
   * list aside): a precompile recipient, the gas limit, the calldata size.
   */
  bundleRefusal(tx: TypedTransaction): string | undefined {
    // SEQ/sequencer/txpoolvalidation/validators/PrecompileAddressValidator.java
    if (tx.to !== undefined && isPrecompileAddress(tx.to.bytes))
      return 'destination address is a precompile address and cannot receive transactions';
    // SEQ/sequencer/txpoolvalidation/validators/GasLimitValidator.java
    const { maxTxGasLimit, maxTxCalldataSize } = this.config;
    if (tx.gasLimit > maxTxGasLimit)
      return `Gas limit of transaction is greater than the allowed max of ${maxTxGasLimit}`;
    // SEQ/sequencer/txpoolvalidation/validators/CalldataValidator.java
    if (maxTxCalldataSize !== undefined && tx.data.length > maxTxCalldataSize)
      return `Calldata of transaction is greater than the allowed max of ${maxTxCalldataSize}`;
    return undefined;
  }

  /** Whether `tx` pays at least the base fee and the profitable priority fee at `margin` for `gas` (isProfitable). */
  profitable(tx: TypedTransaction, sender: Uint8Array, baseFee: bigint, margin: number, gas: bigint): boolean {
    const paying = payingGasPrice(tx, baseFee);
    const pays = (size: number) => paying >= baseFee + profitablePriorityFee(this.pricing, margin, gas, size);
    const priced = this.pricedOf(tx, sender);
    // Paying the fee at the largest size compression can give is paying it at the transaction's own
    // size: the verdict is the same without compressing (a deflate costs about a tenth of a submission).
    if (priced.size === undefined && pays(compressedSizeBound(priced.input.length))) return true;
    return pays((priced.size ??= compressedSize(priced.input)));
  }

  /** The compressed size the sequencer prices `tx` by (profitability.ts). */
  compressedSize(tx: TypedTransaction, sender: Uint8Array): number {
    const priced = this.pricedOf(tx, sender);
    return (priced.size ??= compressedSize(priced.input));
  }

  private pricedOf(tx: TypedTransaction, sender: Uint8Array): { input: Uint8Array; size?: number } {
    let priced = this.priced.get(tx);
    if (priced === undefined) {
      priced = { input: compressorInput(tx, sender) };
      this.priced.set(tx, priced);
    }
    return priced;
  }

  /** The extra data of the next block: the pricing in force, version 1. */
  extraData(): Uint8Array {
    return encodeExtraData(this.pricing);
  }

  /** A block being built at `baseFee`, as the selectors see it. */
  startBlock(baseFee: bigint): BlockRules {
    return new BlockRules(this, baseFee);
  }
}

/** The block-building selectors of one block. */
export class BlockRules {
  private calldata = 0;
  private gas = 0n;

  constructor(
    private readonly rules: SequencerRules,
    private readonly baseFee: bigint,
  ) {}

  /**
   * Before `tx` runs: room for its calldata (SEQ/sequencer/txselection/selectors/
   * MaxBlockCallDataTransactionSelector.java), and profitable at its gas limit
   * (ProfitableTransactionSelector.java, pre-processing).
   */
  before(tx: TypedTransaction, sender: Uint8Array, priority = false): BlockRuleVerdict | undefined {
    const { config } = this.rules;
    const max = config.maxBlockCalldataSize;
    if (max !== undefined && this.calldata + tx.data.length > max) return 'BLOCK_CALLDATA_OVERFLOW';
    // A priority transaction (a forced one, a priority sender's) is not priced.
    if (
      !priority &&
      !this.rules.hasPriority(sender) &&
      !this.rules.profitable(tx, sender, this.baseFee, config.minMargin, tx.gasLimit)
    )
      return 'TX_UNPROFITABLE_UPFRONT';
    return undefined;
  }

  /**
   * After `tx` ran and used `gasUsed`: room for it in the user gas (MaxBlockGasTransactionSelector.java),
   * and profitable at the gas it used (ProfitableTransactionSelector.java, post-processing).
   */
  after(
    tx: TypedTransaction,
    sender: Uint8Array,
    gasUsed: bigint,
    logs: { address: Uint8Array; topics: Uint8Array[] }[],
    priority = false,
  ): BlockRuleVerdict | undefined {
    const { config } = this.rules;
    const max = config.maxBlockGas;
    if (gasUsed > max) return 'TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS';
    if (this.gas + gasUsed > max) return 'TX_TOO_LARGE_FOR_REMAINING_USER_GAS';
    if (
      !priority &&
      !this.rules.hasPriority(sender) &&
      !this.rules.profitable(tx, sender, this.baseFee, config.minMargin, gasUsed)
    )
      return 'TX_UNPROFITABLE';
    // SEQ/sequencer/txselection/selectors/TransactionEventSelector.java
    if (config.deniedEvents.some((f) => logs.some((log) => matches(f, log)))) return 'DENIED_LOG_TOPIC';
    return undefined;
  }

  /** What the block took so far, and back to it (a bundle not selected whole). */
  mark(): { calldata: number; gas: bigint } {
    return { calldata: this.calldata, gas: this.gas };
  }

  rollback(mark: { calldata: number; gas: bigint }): void {
    this.calldata = mark.calldata;
    this.gas = mark.gas;
  }

  /** `tx` is in the block, having used `gasUsed`. */
  selected(tx: TypedTransaction, gasUsed: bigint): void {
    this.calldata += tx.data.length;
    this.gas += gasUsed;
  }
}
