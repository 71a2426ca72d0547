export {
  deriveAccounts,
  derivationPathIndexes,
  DEFAULT_DERIVATION_PATH,
  DEFAULT_MNEMONIC,
  randomMnemonic,
} from './config/accounts';
export type { DevAccount } from './config/accounts';
export { Chain } from './chain/chain';
export { requestFees, requestTransaction, SUGGESTED_TIP } from './pool/requestTx';
export type { ChainOptions } from './chain/chain';
export { CALL_GAS_CAP_FACTOR } from './chain/head';
export type { ChainEvents } from './chain/head';
export { LOG_QUERY_TIMEOUT_MS, MAX_LOG_RESULTS } from './chain/reads';
export type { AccountState, ChainTransaction, FeeHistory } from './chain/reads';
export type { MiningMode, TestBlockRequest } from './chain/miner';
export type { Finality } from './chain/finality';
export { withSender } from './pool/txCodec';
export { effectiveGasPrice } from './exec/blockBuilder';
export type { BuildResult } from './exec/blockBuilder';
export { NodeClock } from './chain/clock';
export * from './errors';
export { FIXTURES_DIR } from './config/fixtures';
export { EXCLUSION_RETENTION_MS, ExclusionStore } from './lines/exclusionStore';
export type { ExclusionFilter, ExclusionRecord, RejectionStage } from './lines/exclusionStore';
export { ExclusionControl } from './lines/exclusionControl';
export type { ExclusionMatch, ForcedExclusion } from './lines/exclusionControl';
export {
  DEFAULT_BALANCE,
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  SUPPORTED_HARDFORKS,
  hardforkNamed,
} from './config/genesis';
export { Conflation } from './lines/conflation';
export { LineCounter, MESSAGE_SENT_TOPIC, NO_BRIDGE } from './lines/lineCounter';
export type { L1L2Bridge } from './lines/lineCounter';
export type { LineCounts } from './lines/conflation';
export { DEFAULT_LIMITS, LineLimits, SEPOLIA_LIMITS } from './lines/lineLimits';
export type { LineOverflow } from './lines/lineLimits';
export {
  COUNTERS,
  MODULES,
  PROFILES,
  TRACER_PROFILES,
  TRACER_VERSIONS,
  counterRefusal,
  profileOf,
} from './lines/lineProfiles';
export type { CounterName, TracerProfile, TracerProfileName } from './lines/lineProfiles';
export { RPC_EVM_TIMEOUT_MS } from './exec/simulator';
export { decodeRevertReason } from './exec/revertReason';
export type { CallRequest, CallResult, StateOverride } from './exec/simulator';
export { effectiveTip, maxFeeOf, maxTipOf } from './pool/txPool';
export type { PoolTx } from './pool/txPool';
export { blockSize, matchesLog } from './store/chainStore';
export type { KvOp, KvStore } from './store/kvStore';
export type { AccountProof, BlockRef, LocatedLog, Log, LogFilter, Receipt, TxLocation } from './types';
export { parseDuration, parseEther } from './config/units';
export { encodeReceipt } from './store/receiptEncoding';
export { MAX_SIMULATED_BLOCKS, SimulateError } from './exec/simulate';
export type {
  SimBlockInput,
  SimBlockOverrides,
  SimCall,
  SimCallResult,
  SimOptions,
  SimulatedBlock,
} from './exec/simulate';
export type {
  BlockOverrides,
  CallFrame,
  CallLog,
  FlatTrace,
  LineFrame,
  PrestateAccount,
  StructLog,
  TraceOptions,
  TraceResult,
} from './exec/tracers/tracer';
export { verifyAccountProof } from './state/proofVerifier';
export { verifyLineaProof } from './state/linea/lineaProofVerifier';
export { SYSTEM_CONTRACTS } from './config/systemContracts';
export { lazyKzg } from './config/kzg';
export type { SystemContract } from './config/systemContracts';
export type { ForkConfig, ForkConfigs } from './config/forkConfig';
export type { ProofReport } from './state/proofVerifier';
export type { LineaAccountProof } from './state/linea/lineaState';
export type { LineaProofReport } from './state/linea/lineaProofVerifier';
export type { LineaKeyProof, LineaLeafProof } from './state/linea/zkTrie';
export { LINEA_MAINNET_RULES, parseEventFilters } from './pool/sequencerRules';
export type { EventFilter, SequencerRulesConfig } from './pool/sequencerRules';
export {
  compressedSize,
  compressorInput,
  decodeExtraData,
  encodeExtraData,
  LINEA_MAINNET_PRICING,
  profitablePriorityFee,
} from './pool/profitability';
export type { Pricing } from './pool/profitability';
export type { BundleRequest, ForcedItem } from './chain/admission';
export type { KeptOption } from './chain/open';
export { ForkState } from './fork/forkState';
export type { ForkOptions, ForkSource, RemoteHeader, RemoteProof } from './fork/forkState';
export { MessageRelay } from './messaging/relay';
export type { Anchoring, Cadence, Finalization, RelayOptions } from './messaging/relay';
export {
  L1_MESSAGE_SERVICE,
  L1_TOKEN_BRIDGE,
  L2_MESSAGE_SERVICE,
  L2_TOKEN_BRIDGE,
  MINIMUM_FEE_WEI,
  operatorAddress,
} from './messaging/services';
export { messageStatus } from './messaging/status';
export type { MessageStatus } from './messaging/status';
export type { ListedAccount, LoadedAccount } from './state/stateDump';
