export { CREDITS_FILE, creditsOf, DEFAULT_CREDITS } from './credits';
export * from './errors';
export * from './format';
export { method, optional, required, withDefault } from './method';
export type { Method, ParamSpec, RpcContext } from './method';
export * as params from './params';
export type { Profile } from './params';
export { createProvider, Eip1193Provider, ProviderRpcError } from './provider';
export type { RequestArguments } from './provider';
export { CLIENT_VERSION, createRpc, Rpc, serializeResponse } from './rpc';
export type {
  Authorize,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcResponse,
  JsonRpcSuccess,
  RequestOptions,
  RpcOptions,
} from './rpc';
export { ChainFeed, FILTER_TIMEOUT_MS } from './subscriptions';
export type { FilterKind, Session, SubscriptionKind } from './subscriptions';
export { RemoteCallError, RemoteNode } from './remote';
export type { RemoteNodeOptions } from './remote';
export { replayRemoteTransaction } from './forkReplay';
export type { RemoteReplay, ReplaySettings } from './forkReplay';
export { messagingMethods } from './methods/messaging';
export { anvilAccounts, anvilStateJson, anvilStateOfBlob } from './anvilState';
