export { startNode } from './node';
export type { NodeOptions, RunningNode } from './node';
export { HELP, parseFlags, DEFAULT_LIMITS } from './flags';
export type { CliConfig } from './flags';
