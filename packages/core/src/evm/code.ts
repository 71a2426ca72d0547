/**
 * Code as the interpreter runs it: its bytes and the map of its valid jump destinations (a JUMPDEST
 * byte that is not inside a PUSH's immediate data), worked out once per code and kept by the code's
 * hash while the code is in use.
 */
import { LruCache } from '../support/lru';

export interface AnalysedCode {
  readonly code: Uint8Array;
  /** 1 at each valid jump destination. */
  readonly jumpdests: Uint8Array;
}

const JUMPDEST = 0x5b;
const PUSH1 = 0x60;
const PUSH32 = 0x7f;

/** Contract code by code hash (hex): deployed code repeats across calls and blocks. */
const analysed = new LruCache<string, AnalysedCode>(4_096, {
  weigh: (a) => a.code.length * 2 + 64,
  maxWeight: 64 << 20,
});

export function analyse(code: Uint8Array): AnalysedCode {
  const jumpdests = new Uint8Array(code.length);
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc];
    if (op === JUMPDEST) jumpdests[pc] = 1;
    else if (op >= PUSH1 && op <= PUSH32) pc += op - PUSH1 + 1;
  }
  return { code, jumpdests };
}

/** The analysis of code whose hash is `hashHex` (init code has none: analysed each time). */
export function analysedByHash(hashHex: string, code: Uint8Array): AnalysedCode {
  let a = analysed.get(hashHex);
  if (a === undefined) {
    a = analyse(code);
    analysed.set(hashHex, a);
  }
  return a;
}
