export { createNode } from './node';
export type { NodeOutput, RunningNode } from './node';
export { FLAG_STYLE, LIBRARY_STYLE, OptionError, resolveNodeOptions } from './options';
export type { NodeConfig, NodeOptions, OptionStyle } from './options';
export { DEFAULT_DATA_DIR, HELP, parseFlags } from './flags';
export type { ParsedFlags } from './flags';
