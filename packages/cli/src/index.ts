export { startNode } from './node';
export type { NodeOptions, RunningNode } from './node';
export { HELP, parseFlags, PRODUCTION_LIMITS } from './flags';
export type { CliConfig } from './flags';
