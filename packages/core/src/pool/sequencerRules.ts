/**
 * Linea's sequencer rules beyond line counts, as its plugins apply them (Consensys/linea-monorepo
 * cb180134, `linea-besu/plugins/linea-sequencer/sequencer/src/main/java/net/consensys/linea`, below
 * SEQ): at submission the pool validators refuse a transaction with their own words, and in block
 * building the selectors leave a transaction for a later block or drop it. The defaults are the
 * values of Linea mainnet's profile (`linea-besu/package/linea-besu/profiles/advanced-mainnet.toml`).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { TransactionType } from '@ethereumjs/tx';

export interface SequencerRulesConfig {
  /** Largest calldata (or init code) of a transaction, bytes; undefined: no limit. `--plugin-linea-max-tx-calldata-size` */
  maxTxCalldataSize: number | undefined;
  /** Largest calldata of a block's transactions together, bytes; undefined: no limit. `--plugin-linea-max-block-calldata-size` */
  maxBlockCalldataSize: number | undefined;
  /** Largest gas limit of a transaction. `--plugin-linea-max-tx-gas-limit` */
  maxTxGasLimit: bigint;
  /** Most gas a block's transactions may use together. `--plugin-linea-max-block-gas` */
  maxBlockGas: bigint;
}

/** Linea mainnet's values (advanced-mainnet.toml). */
export const LINEA_MAINNET_RULES: SequencerRulesConfig = {
  maxTxCalldataSize: 60_000,
  maxBlockCalldataSize: 109_000,
  maxTxGasLimit: 24_000_000n,
  maxBlockGas: 55_000_000n,
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

/** Why a block leaves a transaction out (the selectors' statuses, LineaTransactionSelectionResult). */
export type BlockRuleVerdict =
  /** Kept in the pool for a later block (MaxBlockCallDataTransactionSelector, MaxBlockGasTransactionSelector). */
  | 'BLOCK_CALLDATA_OVERFLOW'
  | 'TX_TOO_LARGE_FOR_REMAINING_USER_GAS'
  /** Dropped from the pool (MaxBlockGasTransactionSelector). */
  | 'TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS';

export class SequencerRules {
  constructor(readonly config: SequencerRulesConfig) {}

  /**
   * The pool validators' refusal of `tx`, in their order (LineaTransactionPoolValidatorFactory):
   * the transaction type, a precompile recipient, the gas limit, the calldata size. The deny list
   * and the line counts are the line gate's.
   */
  refusal(tx: TypedTransaction): string | undefined {
    // SEQ/sequencer/txvalidation/TransactionTypeValidation.java (blob transactions off by default).
    if (tx.type === TransactionType.BlobEIP4844) return 'TransactionTypeValidation - BLOB_TX_NOT_ALLOWED';
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

  /** A block being built, as the selectors see it: the calldata and gas its transactions took. */
  startBlock(): BlockRules {
    return new BlockRules(this.config);
  }
}

/** The block-building selectors of one block. */
export class BlockRules {
  private calldata = 0;
  private gas = 0n;

  constructor(private readonly config: SequencerRulesConfig) {}

  /** Before `tx` runs: room for its calldata (SEQ/sequencer/txselection/selectors/MaxBlockCallDataTransactionSelector.java). */
  before(tx: TypedTransaction): BlockRuleVerdict | undefined {
    const max = this.config.maxBlockCalldataSize;
    if (max !== undefined && this.calldata + tx.data.length > max) return 'BLOCK_CALLDATA_OVERFLOW';
    return undefined;
  }

  /** After `tx` ran and used `gasUsed`: room for it in the user gas (MaxBlockGasTransactionSelector.java). */
  after(gasUsed: bigint): BlockRuleVerdict | undefined {
    const max = this.config.maxBlockGas;
    if (gasUsed > max) return 'TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS';
    if (this.gas + gasUsed > max) return 'TX_TOO_LARGE_FOR_REMAINING_USER_GAS';
    return undefined;
  }

  /** `tx` is in the block, having used `gasUsed`. */
  selected(tx: TypedTransaction, gasUsed: bigint): void {
    this.calldata += tx.data.length;
    this.gas += gasUsed;
  }
}
