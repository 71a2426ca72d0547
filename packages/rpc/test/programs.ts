/**
 * Seeded random EVM programs for the differential tests (fastPath.test.ts, engines.test.ts): between
 * them they use every opcode, storage, logs, calls into the addresses given (precompiles, contracts),
 * creations, self-destructs, jumps and loops.
 */
/** The opcodes defined by the latest hardfork (earlier forks take some of them as undefined). */
const DEFINED = [
  ...range(0x00, 0x0b),
  ...range(0x10, 0x1d),
  0x20,
  ...range(0x30, 0x3f),
  ...range(0x40, 0x4a),
  ...range(0x50, 0x5f),
  ...range(0x60, 0x7f),
  ...range(0x80, 0x9f),
  ...range(0xa0, 0xa4),
  0xf0,
  0xf1,
  0xf2,
  0xf3,
  0xf4,
  0xf5,
  0xfa,
  0xfd,
  0xff,
];

/**
 * Init code of a key-value store: called with one word it returns that slot, with two it stores
 * the second in the first. No PUSH0, so every fork runs it.
 */
export const KV_STORE = '0x601a80600b6000396000f3600035602036116013575460005260206000f35b6020359055' + '00';

/** Opcodes with effects that outlive the run (logs, storage, accounts), drawn more often. */
const STATEFUL = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0x55, 0x5d, 0xf0, 0xf1, 0xf5, 0xff];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const hex = (bytes: number[]) => `0x${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/** A value to push: mostly small (offsets, sizes, slots), sometimes an address that exists, sometimes wide. */
function operand(rand: () => number, addresses: number[][]): number[] {
  const r = rand();
  if (r < 0.75) return [Math.floor(rand() * 70)];
  if (r < 0.9) return addresses[Math.floor(rand() * addresses.length)];
  if (r < 0.95) return [Math.floor(rand() * 256), Math.floor(rand() * 256)];
  if (r < 0.98) return Array.from({ length: 32 }, () => Math.floor(rand() * 256));
  return Array(32).fill(0xff);
}

function push(bytes: number[]): number[] {
  const trimmed = bytes.length > 32 ? bytes.slice(-32) : bytes;
  return [0x5f + trimmed.length, ...trimmed];
}

/**
 * A random program of `length` instructions, each after zero to seven pushed operands. It carries
 * opcode `must` somewhere, so that a run of 256 programs uses every opcode.
 */
export function program(rand: () => number, addresses: number[][], must: number): string {
  const code: number[] = [];
  const jumpdests: number[] = [];
  const length = 4 + Math.floor(rand() * 28);
  const mustAt = Math.floor(rand() * length);
  for (let i = 0; i < length; i++) {
    // Undefined opcodes end a run at once: apart from `must`, few instructions are undefined ones.
    const r = rand();
    const op =
      i === mustAt
        ? must
        : r < 0.1
          ? STATEFUL[Math.floor(rand() * STATEFUL.length)]
          : r < 0.97
            ? DEFINED[Math.floor(rand() * DEFINED.length)]
            : Math.floor(rand() * 256);
    const operands = 1 + Math.floor(rand() * 7);
    for (let k = 0; k < operands; k++) code.push(...push(operand(rand, addresses)));
    if ((op === 0x56 || op === 0x57) && jumpdests.length > 0 && rand() < 0.7) {
      if (op === 0x57) code.push(...push([Math.floor(rand() * 2)]));
      const target = jumpdests[Math.floor(rand() * jumpdests.length)];
      code.push(...push([target >> 8, target & 0xff]));
    }
    if (op === 0x5b) jumpdests.push(code.length);
    if (op >= 0x60 && op <= 0x7f) {
      code.push(op, ...Array.from({ length: op - 0x5f }, () => Math.floor(rand() * 256)));
      continue;
    }
    code.push(op);
  }
  // Return some memory, so calls have return data to compare.
  code.push(...push([Math.floor(rand() * 64)]), ...push([Math.floor(rand() * 64)]), 0xf3);
  return hex(code);
}
