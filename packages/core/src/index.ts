export { deriveAccounts, DEFAULT_MNEMONIC } from './accounts';
export type { DevAccount } from './accounts';
export { Chain, withSender, CALL_GAS_CAP_FACTOR, LOG_QUERY_TIMEOUT_MS, MAX_LOG_RESULTS, SUGGESTED_TIP } from './chain';
export type { AccountProof, AccountState, ChainOptions, ChainTransaction, MiningMode } from './chain';
export { effectiveGasPrice } from './blockBuilder';
export { NodeClock } from './clock';
export * from './errors';
export { EXCLUSION_RETENTION_MS, ExclusionStore } from './exclusionStore';
export type { ExclusionRecord, RejectionStage } from './exclusionStore';
export {
  DEFAULT_BALANCE,
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  SUPPORTED_HARDFORKS,
} from './genesis';
export { LineCounter } from './lineCounter';
export type { LineCounts } from './lineCounter';
export { LineLimits } from './lineLimits';
export type { LineOverflow } from './lineLimits';
export { MODULE_RULES, MODULES, NOT_MODELLED } from './lineModules';
export { decodeRevertReason } from './simulator';
export type { CallRequest, CallResult, StateOverride } from './simulator';
export { effectiveTip, maxFeeOf, maxTipOf } from './txPool';
export type { PoolTx } from './txPool';
export { matchesLog } from './chainStore';
export type { KvOp, KvStore } from './kvStore';
export type { BlockRef, LocatedLog, Log, LogFilter, Receipt, TxLocation } from './types';
