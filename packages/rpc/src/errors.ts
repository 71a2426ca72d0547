/**
 * JSON-RPC errors, and the one place where a core error becomes a code (`toRpcError`).
 */
import { bytesToHex } from '@ethereumjs/util';
import { ChainError } from '@l2devnet/core';
import type { ChainErrorKind } from '@l2devnet/core';

/** JSON-RPC 2.0 and the conventions geth and the spec use. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** geth: a transaction or call the node refuses. */
export const SERVER_ERROR = -32000;
/** Spec, Errors: a query over a limit (results, time, credits). */
export const LIMIT_EXCEEDED = -32005;
/** The execution-apis code for a request over a client's limit (geth's ClientLimitExceededError). */
export const CLIENT_LIMIT_EXCEEDED = -38026;
/** EIP-1474's resource not found: Anvil's answer for an unknown block (ots_getBlockDetails). */
export const RESOURCE_NOT_FOUND = -32001;
/** Spec, Errors: execution hit REVERT. */
export const EXECUTION_REVERTED = 3;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: string,
  ) {
    super(message);
  }

  toJSON(): { code: number; message: string; data?: string } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export function invalidParams(detail: string): RpcError {
  return new RpcError(INVALID_PARAMS, `invalid params: ${detail}`);
}

/** The code of each core failure. A new kind without a row here does not compile. */
const CODES: Record<ChainErrorKind, number> = {
  invalidTransaction: SERVER_ERROR,
  invalidSender: SERVER_ERROR,
  chainIdMismatch: SERVER_ERROR,
  txTypeNotSupported: SERVER_ERROR,
  nonceTooLow: SERVER_ERROR,
  insufficientFunds: SERVER_ERROR,
  intrinsicGasTooLow: SERVER_ERROR,
  gasLimitExceeded: SERVER_ERROR,
  feeCapTooLow: SERVER_ERROR,
  tipAboveFeeCap: SERVER_ERROR,
  replacementUnderpriced: SERVER_ERROR,
  underpriced: SERVER_ERROR,
  invalidTimestamp: INVALID_PARAMS,
  invalidArgument: INVALID_PARAMS,
  alreadyKnown: SERVER_ERROR,
  unknownAccount: SERVER_ERROR,
  headerNotFound: SERVER_ERROR,
  executionReverted: EXECUTION_REVERTED,
  executionHalted: SERVER_ERROR,
  executionTimeout: SERVER_ERROR,
  lineLimitExceeded: SERVER_ERROR,
  logQueryLimit: LIMIT_EXCEEDED,
  logQueryTimeout: LIMIT_EXCEEDED,
  invalidLimits: INVALID_PARAMS,
  invalidGenesis: INVALID_PARAMS,
  databaseOpen: SERVER_ERROR,
  deniedAddress: SERVER_ERROR,
  trace: SERVER_ERROR,
  import: INVALID_PARAMS,
  simulate: SERVER_ERROR,
  stateOverride: SERVER_ERROR,
  buildBlock: SERVER_ERROR,
  sequencerRule: SERVER_ERROR,
  bundle: INVALID_PARAMS,
  fork: SERVER_ERROR,
  stateProofUnavailable: INVALID_REQUEST,
};

export type ErrorLogger = (error: unknown) => void;

/** Maps anything thrown by a handler to the error the client sees. Unexpected errors are logged, not leaked. */
export function toRpcError(error: unknown, log: ErrorLogger): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ChainError) {
    // eth_simulateV1's errors carry the code its specification gives each.
    if (error.kind === 'simulate') return new RpcError((error as unknown as { code: number }).code, error.message);
    const data =
      error.kind === 'executionReverted' ? bytesToHex((error as unknown as { data: Uint8Array }).data) : undefined;
    return new RpcError(CODES[error.kind], error.message, data);
  }
  log(error);
  return new RpcError(INTERNAL_ERROR, 'internal error');
}
