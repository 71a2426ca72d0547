export { CreditLedger, utcDay } from './creditLedger';
export type { ChargeResult } from './creditLedger';
export { maskKey, MAX_BATCH, MAX_BODY_BYTES, MAX_WS_MESSAGE_BYTES, startServer, UNAUTHORIZED } from './server';
export type { RunningServer, ServerOptions } from './server';
export { ListenError } from './listen';
