/**
 * The line-count model: what each prover module is charged for a transaction, computed from a tally
 * of what the EVM did (see lineCounter.ts). The real counts come from the zkEVM tracer and cannot be
 * reproduced outside it; each rule below says what it approximates and how closely. Modules listed in
 * NOT_MODELLED always count 0.
 */

/** A transaction's execution, as observed by the line counter. */
export interface Tally {
  /** Executions per opcode byte. */
  ops: Uint32Array;
  /** Message frames run by the interpreter (the transaction's own frame included). */
  frames: number;
  /** Bytes of code of every frame entered (init code included). */
  codeBytes: number;
  /** Distinct code addresses executed. */
  codeAddresses: Set<string>;
  keccakCalls: number;
  /** KECCAK256 (and CREATE2 init-code) input, in 32-byte words. */
  keccakWords: number;
  /** Bytes moved between memory and elsewhere: *COPY, MLOAD/MSTORE, RETURN/REVERT, LOG data. */
  copyBytes: number;
  logBytes: number;
  /** Byte length of EXP exponents. */
  expBytes: number;
  /** Successful precompile calls by precompile address byte (1 = ECRECOVER, ...). */
  precompileCalls: Uint32Array;
  sha2Blocks: number;
  ripemdBlocks: number;
  modexpInputBytes: number;
  pairings: number;
  pairingCalls: number;
  blakeRounds: number;
  /** Per transaction. */
  txBytes: number;
  /** Accounts the transaction itself touches (sender and recipient). */
  txTouches: number;
  logs: number;
  logTopics: number;
  l2l1Logs: number;
}

export interface ModuleRule {
  module: string;
  /** What the rule approximates in the real prover, and how closely. */
  approximates: string;
  count: (t: Tally) => number;
}

const OP = {
  ADD: 0x01,
  MUL: 0x02,
  SUB: 0x03,
  DIV: 0x04,
  SDIV: 0x05,
  MOD: 0x06,
  SMOD: 0x07,
  ADDMOD: 0x08,
  MULMOD: 0x09,
  EXP: 0x0a,
  SIGNEXTEND: 0x0b,
  LT: 0x10,
  GT: 0x11,
  SLT: 0x12,
  SGT: 0x13,
  EQ: 0x14,
  ISZERO: 0x15,
  AND: 0x16,
  OR: 0x17,
  XOR: 0x18,
  NOT: 0x19,
  BYTE: 0x1a,
  SHL: 0x1b,
  SHR: 0x1c,
  SAR: 0x1d,
  KECCAK256: 0x20,
  BALANCE: 0x31,
  CALLDATALOAD: 0x35,
  CALLDATACOPY: 0x37,
  CODECOPY: 0x39,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  RETURNDATACOPY: 0x3e,
  EXTCODEHASH: 0x3f,
  BLOCKHASH: 0x40,
  COINBASE: 0x41,
  TIMESTAMP: 0x42,
  NUMBER: 0x43,
  PREVRANDAO: 0x44,
  GASLIMIT: 0x45,
  CHAINID: 0x46,
  SELFBALANCE: 0x47,
  BASEFEE: 0x48,
  BLOBHASH: 0x49,
  BLOBBASEFEE: 0x4a,
  MLOAD: 0x51,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  TLOAD: 0x5c,
  TSTORE: 0x5d,
  MCOPY: 0x5e,
  LOG0: 0xa0,
  LOG4: 0xa4,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  SELFDESTRUCT: 0xff,
} as const;

export { OP };

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sum = (t: Tally, codes: readonly number[]) => codes.reduce((acc, c) => acc + t.ops[c], 0);
const limbs = (bytes: number) => Math.ceil(bytes / 16);

const CALLS = [OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL];
const CREATES = [OP.CREATE, OP.CREATE2];
const LOGS = range(OP.LOG0, OP.LOG4);
const COMPARISONS = [OP.LT, OP.GT, OP.SLT, OP.SGT, OP.EQ, OP.ISZERO];
const MEMORY_OPS = [
  OP.MLOAD,
  OP.MSTORE,
  OP.MSTORE8,
  OP.KECCAK256,
  OP.CALLDATACOPY,
  OP.CODECOPY,
  OP.EXTCODECOPY,
  OP.RETURNDATACOPY,
  OP.MCOPY,
  ...LOGS,
  ...CREATES,
  ...CALLS,
  OP.RETURN,
  OP.REVERT,
];
const STATE_TOUCHES = [
  OP.SLOAD,
  OP.SSTORE,
  OP.BALANCE,
  OP.EXTCODESIZE,
  OP.EXTCODECOPY,
  OP.EXTCODEHASH,
  OP.SELFDESTRUCT,
];
const ADDRESS_ARGS = [OP.BALANCE, OP.EXTCODESIZE, OP.EXTCODECOPY, OP.EXTCODEHASH, ...CALLS, OP.SELFDESTRUCT];
const BLOCK_CONTEXT = [
  OP.COINBASE,
  OP.TIMESTAMP,
  OP.NUMBER,
  OP.PREVRANDAO,
  OP.GASLIMIT,
  OP.CHAINID,
  OP.BASEFEE,
  OP.BLOBBASEFEE,
];

const totalOps = (t: Tally) => t.ops.reduce((a, b) => a + b, 0);
const pc = (t: Tally, address: number) => t.precompileCalls[address];

export const MODULE_RULES: readonly ModuleRule[] = [
  {
    module: 'ADD',
    approximates:
      'one line per ADD/SUB; the real module spends a fixed number of rows per operation (exact in proportion)',
    count: (t) => sum(t, [OP.ADD, OP.SUB]),
  },
  {
    module: 'BIN',
    approximates: 'one line per AND/OR/XOR/NOT/BYTE/SIGNEXTEND (exact in proportion)',
    count: (t) => sum(t, [OP.AND, OP.OR, OP.XOR, OP.NOT, OP.BYTE, OP.SIGNEXTEND]),
  },
  {
    module: 'BLAKE_MODEXP_DATA',
    approximates:
      'MODEXP input in 16-byte limbs plus 6 per call, and BLAKE2f rounds; the real layout differs per operand size (rough)',
    count: (t) => limbs(t.modexpInputBytes) + 6 * pc(t, 5) + t.blakeRounds,
  },
  {
    module: 'BLOCK_DATA',
    approximates:
      'one line per block-context opcode (COINBASE, TIMESTAMP, NUMBER, ...); the real module is a per-block constant (rough)',
    count: (t) => sum(t, BLOCK_CONTEXT),
  },
  {
    module: 'BLOCK_HASH',
    approximates: 'one line per BLOCKHASH (exact in proportion)',
    count: (t) => t.ops[OP.BLOCKHASH],
  },
  {
    module: 'EC_DATA',
    approximates:
      'rows of elliptic-curve precompile data: 10 per ECRECOVER, 12 per ECADD/ECMUL, 24 per pairing (close)',
    count: (t) => 10 * pc(t, 1) + 12 * pc(t, 6) + 12 * pc(t, 7) + 24 * t.pairings,
  },
  {
    module: 'EUC',
    approximates: 'one line per Euclidean division (DIV/SDIV/MOD/SMOD/ADDMOD/MULMOD) (exact in proportion)',
    count: (t) => sum(t, [OP.DIV, OP.SDIV, OP.MOD, OP.SMOD, OP.ADDMOD, OP.MULMOD]),
  },
  {
    module: 'EXP',
    approximates: 'one line per EXP plus one per exponent byte (close)',
    count: (t) => t.ops[OP.EXP] + t.expBytes,
  },
  {
    module: 'EXT',
    approximates: 'one line per ADDMOD/MULMOD (exact in proportion)',
    count: (t) => sum(t, [OP.ADDMOD, OP.MULMOD]),
  },
  {
    module: 'HUB',
    approximates: 'one line per executed opcode, plus 2 per call frame and 1 per account or storage touch (close)',
    count: (t) => totalOps(t) + 2 * t.frames + t.txTouches + sum(t, STATE_TOUCHES) + sum(t, CALLS),
  },
  { module: 'LOG_DATA', approximates: 'logged data in 16-byte limbs (close)', count: (t) => limbs(t.logBytes) },
  { module: 'LOG_INFO', approximates: 'one line per LOG (exact)', count: (t) => t.logs },
  {
    module: 'MMIO',
    approximates: 'two lines per 16-byte limb moved plus one per memory opcode (rough)',
    count: (t) => 2 * limbs(t.copyBytes) + sum(t, MEMORY_OPS),
  },
  {
    module: 'MMU',
    approximates: 'one line per 16-byte limb moved plus one per memory opcode (rough)',
    count: (t) => limbs(t.copyBytes) + sum(t, MEMORY_OPS),
  },
  {
    module: 'MOD',
    approximates: 'one line per DIV/SDIV/MOD/SMOD (exact in proportion)',
    count: (t) => sum(t, [OP.DIV, OP.SDIV, OP.MOD, OP.SMOD]),
  },
  {
    module: 'MUL',
    approximates: 'one line per MUL and per EXP (exact in proportion)',
    count: (t) => t.ops[OP.MUL] + t.ops[OP.EXP],
  },
  {
    module: 'MXP',
    approximates: 'one line per memory-expanding opcode (exact in proportion)',
    count: (t) => sum(t, MEMORY_OPS),
  },
  {
    module: 'OOB',
    approximates:
      'one line per bounds check: jumps, CALLDATALOAD, RETURNDATACOPY, calls, creates, precompile calls (close)',
    count: (t) =>
      sum(t, [OP.JUMP, OP.JUMPI, OP.CALLDATALOAD, OP.RETURNDATACOPY, ...CALLS, ...CREATES]) +
      t.precompileCalls.reduce((a, b) => a + b, 0),
  },
  {
    module: 'RLP_ADDR',
    approximates: 'one line per CREATE/CREATE2 address derivation (exact in proportion)',
    count: (t) => sum(t, CREATES),
  },
  { module: 'RLP_TXN', approximates: "the transaction's RLP size in bytes (close)", count: (t) => t.txBytes },
  {
    module: 'RLP_TXN_RCPT',
    approximates: 'one line per receipt plus one per log and per topic (rough)',
    count: (t) => 1 + t.logs + t.logTopics,
  },
  {
    module: 'ROM',
    approximates: 'bytes of code of every frame entered, init code included (close)',
    count: (t) => t.codeBytes,
  },
  {
    module: 'ROM_LEX',
    approximates: 'one line per distinct contract code executed (exact in proportion)',
    count: (t) => t.codeAddresses.size,
  },
  {
    module: 'SHAKIRA_DATA',
    approximates: 'KECCAK256, SHA256 and RIPEMD160 input in 32-byte words (close)',
    count: (t) => t.keccakWords + 2 * t.sha2Blocks + 2 * t.ripemdBlocks,
  },
  {
    module: 'SHF',
    approximates: 'one line per SHL/SHR/SAR (exact in proportion)',
    count: (t) => sum(t, [OP.SHL, OP.SHR, OP.SAR]),
  },
  {
    module: 'STP',
    approximates: 'one line per CALL/CALLCODE/DELEGATECALL/STATICCALL/CREATE/CREATE2 (exact in proportion)',
    count: (t) => sum(t, [...CALLS, ...CREATES]),
  },
  {
    module: 'TRM',
    approximates: 'one line per opcode taking an address argument (exact in proportion)',
    count: (t) => sum(t, ADDRESS_ARGS),
  },
  {
    module: 'TXN_DATA',
    approximates:
      'one line per transaction; the real module spends a small fixed number of rows per transaction (rough)',
    count: () => 1,
  },
  {
    module: 'WCP',
    approximates:
      'one line per comparison (LT/GT/SLT/SGT/EQ/ISZERO) and per comparison implied by JUMPI and memory expansion (close)',
    count: (t) => sum(t, COMPARISONS) + t.ops[OP.JUMPI] + sum(t, MEMORY_OPS),
  },
  {
    module: 'PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS',
    approximates: 'successful ECRECOVER calls (exact)',
    count: (t) => pc(t, 1),
  },
  {
    module: 'PRECOMPILE_SHA2_BLOCKS',
    approximates: 'SHA256 input in padded 64-byte blocks (exact)',
    count: (t) => t.sha2Blocks,
  },
  {
    module: 'PRECOMPILE_RIPEMD_BLOCKS',
    approximates: 'RIPEMD160 input in padded 64-byte blocks (exact)',
    count: (t) => t.ripemdBlocks,
  },
  {
    module: 'PRECOMPILE_MODEXP_EFFECTIVE_CALLS',
    approximates: 'successful MODEXP calls (exact)',
    count: (t) => pc(t, 5),
  },
  {
    module: 'PRECOMPILE_ECADD_EFFECTIVE_CALLS',
    approximates: 'successful ECADD calls (exact)',
    count: (t) => pc(t, 6),
  },
  {
    module: 'PRECOMPILE_ECMUL_EFFECTIVE_CALLS',
    approximates: 'successful ECMUL calls (exact)',
    count: (t) => pc(t, 7),
  },
  {
    module: 'PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS',
    approximates: 'one per successful ECPAIRING call with at least one pair (exact)',
    count: (t) => t.pairingCalls,
  },
  {
    module: 'PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS',
    approximates: 'one per pair given to ECPAIRING (close: trivial points are not skipped)',
    count: (t) => t.pairings,
  },
  {
    module: 'PRECOMPILE_ECPAIRING_MILLER_LOOPS',
    approximates: 'one per pair given to ECPAIRING (close: trivial points are not skipped)',
    count: (t) => t.pairings,
  },
  {
    module: 'PRECOMPILE_BLAKE_EFFECTIVE_CALLS',
    approximates: 'successful BLAKE2f calls (exact)',
    count: (t) => pc(t, 9),
  },
  { module: 'PRECOMPILE_BLAKE_ROUNDS', approximates: 'BLAKE2f rounds requested (exact)', count: (t) => t.blakeRounds },
  {
    module: 'BLOCK_KECCAK',
    approximates: 'keccak invocations: KECCAK256, CREATE/CREATE2 address hashing, and the transaction hash (close)',
    count: (t) => t.keccakCalls + sum(t, CREATES) + 1,
  },
  {
    module: 'BLOCK_L1_SIZE',
    approximates:
      'bytes the transaction adds to the L1 data, taken as its RLP size before compression (rough: the real value is compressed)',
    count: (t) => t.txBytes,
  },
  {
    module: 'BLOCK_L2_L1_LOGS',
    approximates:
      'L2→L1 messages: logs whose first topic is MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32) (exact for that event)',
    count: (t) => t.l2l1Logs,
  },
  { module: 'BLOCK_TRANSACTIONS', approximates: 'one per transaction (exact)', count: () => 1 },
];

/** Fixed-size lookup tables in the real prover: their size does not depend on transactions. */
export const NOT_MODELLED: readonly string[] = ['BIN_REFERENCE_TABLE', 'SHF_REFERENCE_TABLE', 'INSTRUCTION_DECODER'];

/** Every module of the limits file, in its canonical order. */
export const MODULES: readonly string[] = [
  'ADD',
  'BIN',
  'BLAKE_MODEXP_DATA',
  'BLOCK_DATA',
  'BLOCK_HASH',
  'EC_DATA',
  'EUC',
  'EXP',
  'EXT',
  'HUB',
  'LOG_DATA',
  'LOG_INFO',
  'MMIO',
  'MMU',
  'MOD',
  'MUL',
  'MXP',
  'OOB',
  'RLP_ADDR',
  'RLP_TXN',
  'RLP_TXN_RCPT',
  'ROM',
  'ROM_LEX',
  'SHAKIRA_DATA',
  'SHF',
  'STP',
  'TRM',
  'TXN_DATA',
  'WCP',
  'BIN_REFERENCE_TABLE',
  'SHF_REFERENCE_TABLE',
  'INSTRUCTION_DECODER',
  'PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS',
  'PRECOMPILE_SHA2_BLOCKS',
  'PRECOMPILE_RIPEMD_BLOCKS',
  'PRECOMPILE_MODEXP_EFFECTIVE_CALLS',
  'PRECOMPILE_ECADD_EFFECTIVE_CALLS',
  'PRECOMPILE_ECMUL_EFFECTIVE_CALLS',
  'PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS',
  'PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS',
  'PRECOMPILE_ECPAIRING_MILLER_LOOPS',
  'PRECOMPILE_BLAKE_EFFECTIVE_CALLS',
  'PRECOMPILE_BLAKE_ROUNDS',
  'BLOCK_KECCAK',
  'BLOCK_L1_SIZE',
  'BLOCK_L2_L1_LOGS',
  'BLOCK_TRANSACTIONS',
];
