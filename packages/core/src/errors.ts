/**
 * Typed failures of the chain. Every rejection the core can produce is a subclass of ChainError with a
 * `kind` and the values involved; the RPC layer maps kinds to JSON-RPC codes in one place. Messages
 * use geth's phrases where geth has one, because wallets and libraries match on them.
 */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';

/** An address as geth writes it in messages (common.Address.Hex()): with its EIP-55 checksum. */
export function gethAddress(address: Uint8Array): string {
  return toChecksumAddress(bytesToHex(address));
}

export type ChainErrorKind =
  | 'invalidTransaction'
  | 'invalidSender'
  | 'chainIdMismatch'
  | 'txTypeNotSupported'
  | 'nonceTooLow'
  | 'insufficientFunds'
  | 'intrinsicGasTooLow'
  | 'gasLimitExceeded'
  | 'feeCapTooLow'
  | 'tipAboveFeeCap'
  | 'replacementUnderpriced'
  | 'underpriced'
  | 'invalidTimestamp'
  | 'invalidArgument'
  | 'alreadyKnown'
  | 'unknownAccount'
  | 'headerNotFound'
  | 'executionReverted'
  | 'executionHalted'
  | 'executionTimeout'
  | 'lineLimitExceeded'
  | 'logQueryLimit'
  | 'logQueryTimeout'
  | 'invalidLimits'
  | 'invalidGenesis'
  | 'databaseOpen'
  | 'deniedAddress'
  | 'trace'
  | 'import'
  | 'simulate'
  | 'stateOverride'
  | 'buildBlock'
  | 'sequencerRule'
  | 'bundle'
  | 'fork'
  | 'stateProofUnavailable';

export abstract class ChainError extends Error {
  abstract readonly kind: ChainErrorKind;
  override get name(): string {
    return this.constructor.name;
  }
}

export class InvalidTransactionError extends ChainError {
  readonly kind = 'invalidTransaction';
  constructor(reason: string) {
    super(`invalid transaction: ${reason}`);
  }
}

export class InvalidSenderError extends ChainError {
  readonly kind = 'invalidSender';
  constructor() {
    super('invalid sender');
  }
}

export class ChainIdMismatchError extends ChainError {
  readonly kind = 'chainIdMismatch';
  constructor(
    readonly expected: bigint,
    readonly got: bigint | undefined,
  ) {
    super(`invalid chain id for signer: have ${got ?? 'unknown'} want ${expected}`);
  }
}

export class TxTypeNotSupportedError extends ChainError {
  readonly kind = 'txTypeNotSupported';
  constructor(readonly type: number) {
    super(`transaction type not supported: ${type}`);
  }
}

export class NonceTooLowError extends ChainError {
  readonly kind = 'nonceTooLow';
  constructor(
    readonly address: Uint8Array,
    readonly txNonce: bigint,
    readonly stateNonce: bigint,
  ) {
    super(`nonce too low: address ${gethAddress(address)}, tx: ${txNonce} state: ${stateNonce}`);
  }
}

export class InsufficientFundsError extends ChainError {
  readonly kind = 'insufficientFunds';
  constructor(
    readonly address: Uint8Array,
    readonly have: bigint,
    readonly want: bigint,
  ) {
    super(`insufficient funds for gas * price + value: address ${gethAddress(address)} have ${have} want ${want}`);
  }
}

/** linea_estimateGas's refusal of a sender who cannot buy the estimate's gas, in Besu's words (MainnetTransactionValidator). */
export class UpfrontCostError extends ChainError {
  readonly kind = 'insufficientFunds';
  constructor(
    readonly upfront: bigint,
    readonly balance: bigint,
    readonly address: Uint8Array,
  ) {
    super(
      `transaction up-front cost 0x${upfront.toString(16)} exceeds transaction sender account balance 0x${balance.toString(16)} for sender ${bytesToHex(address)}`,
    );
  }
}

export class IntrinsicGasTooLowError extends ChainError {
  readonly kind = 'intrinsicGasTooLow';
  constructor(
    readonly gas: bigint,
    readonly minimum: bigint,
  ) {
    super(`intrinsic gas too low: gas ${gas}, minimum needed ${minimum}`);
  }
}

export class GasLimitExceededError extends ChainError {
  readonly kind = 'gasLimitExceeded';
  constructor(
    readonly gas: bigint,
    readonly limit: bigint,
    what = 'block gas limit',
  ) {
    super(`exceeds ${what}: gas ${gas}, limit ${limit}`);
  }
}

export class FeeCapTooLowError extends ChainError {
  readonly kind = 'feeCapTooLow';
  constructor(
    readonly address: Uint8Array,
    readonly maxFeePerGas: bigint,
    readonly baseFee: bigint,
  ) {
    super(
      `max fee per gas less than block base fee: address ${gethAddress(address)}, maxFeePerGas: ${maxFeePerGas}, baseFee: ${baseFee}`,
    );
  }
}

export class TipAboveFeeCapError extends ChainError {
  readonly kind = 'tipAboveFeeCap';
  constructor(
    readonly address: Uint8Array | undefined,
    readonly maxPriorityFeePerGas: bigint,
    readonly maxFeePerGas: bigint,
  ) {
    const who = address === undefined ? '' : `address ${gethAddress(address)}, `;
    super(
      `max priority fee per gas higher than max fee per gas: ${who}maxPriorityFeePerGas: ${maxPriorityFeePerGas}, maxFeePerGas: ${maxFeePerGas}`,
    );
  }
}

export class ReplacementUnderpricedError extends ChainError {
  readonly kind = 'replacementUnderpriced';
  constructor() {
    super('replacement transaction underpriced');
  }
}

export class UnderpricedError extends ChainError {
  readonly kind = 'underpriced';
  constructor(
    readonly maxFeePerGas: bigint,
    readonly minimum: bigint,
  ) {
    super(`transaction underpriced: gas price ${maxFeePerGas}, minimum needed ${minimum}`);
  }
}

/** A state override geth refuses (moving what is not a precompile, onto an overridden address, ...). */
export class StateOverrideError extends ChainError {
  readonly kind = 'stateOverride';
  constructor(message: string) {
    super(message);
  }
}

/** geth's txpool: a blob transaction's blob fee cap under the minimum blob gas price (1 wei). */
export class BlobFeeCapTooLowError extends ChainError {
  readonly kind = 'underpriced';
  constructor(
    readonly blobFeeCap: bigint,
    readonly minimum: bigint,
  ) {
    super(`transaction gas price below minimum: blob fee cap ${blobFeeCap}, minimum needed ${minimum}`);
  }
}

export class InvalidTimestampError extends ChainError {
  readonly kind = 'invalidTimestamp';
  constructor(
    readonly timestamp: bigint,
    readonly latest: bigint,
  ) {
    super(`timestamp ${timestamp} is not after the latest block's timestamp ${latest}`);
  }
}

/** A devnet control request the chain cannot carry out as asked (e.g. rolling back past genesis). */
export class InvalidArgumentError extends ChainError {
  readonly kind = 'invalidArgument';
  constructor(message: string) {
    super(message);
  }
}

export class AlreadyKnownError extends ChainError {
  readonly kind = 'alreadyKnown';
  constructor() {
    super('already known');
  }
}

export class UnknownAccountError extends ChainError {
  readonly kind = 'unknownAccount';
  constructor(readonly address: Uint8Array) {
    super(`unknown account ${bytesToHex(address)}`);
  }
}

export class HeaderNotFoundError extends ChainError {
  readonly kind = 'headerNotFound';
  constructor() {
    super('header not found');
  }
}

/** A call or estimate ended in REVERT; `data` holds the raw revert payload. */
export class ExecutionRevertedError extends ChainError {
  readonly kind = 'executionReverted';
  constructor(
    readonly data: Uint8Array,
    readonly reason: string | undefined,
  ) {
    super(reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`);
  }
}

/** A call or estimate halted exceptionally (out of gas, invalid opcode, ...). */
export class ExecutionHaltedError extends ChainError {
  readonly kind = 'executionHalted';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A simulation ran past `--rpc-evm-timeout`; geth's words (`execution aborted (timeout = 5s)`). */
export class ExecutionTimeoutError extends ChainError {
  readonly kind = 'executionTimeout';
  constructor(readonly timeoutMs: number) {
    super(`execution aborted (timeout = ${goDuration(timeoutMs)})`);
  }
}

/** A duration as Go prints a time.Duration, as geth's message shows it: 5s, 1.5s, 500ms. */
function goDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

/** One module's line count for one transaction is above its limit (reference: line-counts.md). */
export class LineLimitExceededError extends ChainError {
  readonly kind = 'lineLimitExceeded';
  constructor(
    readonly txHash: Uint8Array | undefined,
    readonly module: string,
    readonly count: number,
    readonly limit: number,
  ) {
    super(
      txHash === undefined
        ? `Transaction line count for module ${module}=${count} is above the limit ${limit}`
        : `Transaction ${bytesToHex(txHash)} line count for module ${module}=${count} is above the limit ${limit}`,
    );
  }
}

/**
 * A transaction the sequencer already excluded for its line count, submitted again: refused at once
 * (TX_MODULE_LINE_COUNT_OVERFLOW_CACHED), in the words of Linea's pool validator.
 */
export class KnownLineCountOverflowError extends ChainError {
  readonly kind = 'lineLimitExceeded';
  constructor(readonly txHash: Uint8Array) {
    super(`Transaction ${bytesToHex(txHash)} was already identified to go over line count limit`);
  }
}

export class LogQueryLimitError extends ChainError {
  readonly kind = 'logQueryLimit';
  constructor(readonly limit: number) {
    super(`query returned more than ${limit} results`);
  }
}

export class LogQueryTimeoutError extends ChainError {
  readonly kind = 'logQueryTimeout';
  constructor() {
    super('query timeout exceeded');
  }
}

export class InvalidLimitsError extends ChainError {
  readonly kind = 'invalidLimits';
  constructor(message: string) {
    super(message);
  }
}

export class InvalidGenesisError extends ChainError {
  readonly kind = 'invalidGenesis';
  constructor(message: string) {
    super(message);
  }
}

/** The database directory cannot be opened; the message says why and what to do. */
export class DatabaseOpenError extends ChainError {
  readonly kind = 'databaseOpen';
  constructor(message: string) {
    super(message);
  }
}

/** The sender or recipient is on the deny list; Linea's sequencer's words. */
export class DeniedAddressError extends ChainError {
  readonly kind = 'deniedAddress';
  constructor(reason: string) {
    super(reason);
  }
}

/** A trace request naming a tracer or option this node does not have (geth: "tracer not found"). */
export class TracerError extends ChainError {
  readonly kind = 'trace';
}

/** debug_traceTransaction of a hash no block holds (geth's words). */
export class TransactionNotFoundError extends ChainError {
  readonly kind = 'trace';
  constructor() {
    super('transaction not found');
  }
}

/** An imported block that does not hold: its number, the field, what it says and what running it gave. */
export class ImportError extends ChainError {
  readonly kind = 'import';
  constructor(message: string) {
    super(message);
  }
}

/** testing_buildBlockV1 could not build the block asked for (geth's words where geth has them). */
export class BuildBlockError extends ChainError {
  readonly kind = 'buildBlock';
  constructor(message: string) {
    super(message);
  }
}

/** A transaction whose nonce is ahead of its sender's (geth's core.ErrNonceTooHigh). */
export class NonceTooHighError extends ChainError {
  readonly kind = 'buildBlock';
  constructor(
    readonly address: Uint8Array,
    readonly txNonce: bigint,
    readonly stateNonce: bigint,
  ) {
    super(`nonce too high: address ${gethAddress(address)}, tx: ${txNonce} state: ${stateNonce}`);
  }
}

/** A transaction Linea's sequencer refuses at submission (pool/sequencerRules.ts), in its words. */
export class SequencerRuleError extends ChainError {
  readonly kind = 'sequencerRule';
  constructor(message: string) {
    super(message);
  }
}

/** A bundle linea_sendBundle refuses, in the endpoint's words (LineaSendBundle.java). */
export class BundleError extends ChainError {
  readonly kind = 'bundle';
  constructor(message: string) {
    super(message);
  }
}

/** A forked chain's remote failed, or answered what does not check; the message names the remote. */
export class ForkError extends ChainError {
  readonly kind = 'fork';
  constructor(message: string) {
    super(message);
  }
}

/**
 * A Linea state proof the node cannot give: a block not finalized on the L1 (Shomei's answer,
 * services/rpc/server/.../LineaGetProof.java), or a chain whose Linea state it does not hold.
 */
export class StateProofUnavailableError extends ChainError {
  readonly kind = 'stateProofUnavailable';
  constructor(message = 'BLOCK_MISSING_IN_CHAIN - block is missing') {
    super(message);
  }
}
