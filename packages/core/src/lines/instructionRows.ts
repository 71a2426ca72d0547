/**
 * The rows an instruction adds beyond its opcode count (the HUB rows are folded from those counts),
 * read from the stack before the instruction runs, by the counter's rules:
 *  - the full tracer's operand-dependent rows (operandHook): the arithmetic modules' operations,
 *    once per conflation (module/add, mul, mod, ext, wcp, bin, shf; London's formulas in
 *    lineProfiles.ts, one row each from Osaka on), MXP by instruction type (module/mxp/
 *    MxpOperation.java), MMU and MMIO of a memory move, OOB, STP, GAS, RLP_ADDR, SHAKIRA_DATA,
 *    BLOCK_KECCAK and BLOCK_HASH, and London's shared TRM, WCP and EUC operations;
 *  - today's tracer's HUB sections beyond the instruction table (sectionHook, hub/section/**);
 *  - London's stack checks (stackHeightHook, runtime/stack/Stack.java, linea-monorepo 658ab6d1);
 *  - the light counter's (ZkCounter.tracePreExecution, limitlessHook).
 * The counter (lineCounter.ts) hands them its conflation, its frames and its shared operations
 * (InstructionCounting), and calls what instructionHook gives for each instruction about to run.
 */
import { OOB } from './precompileRows';
import {
  addRows,
  binRows,
  clampedToInt,
  extRows,
  GT,
  ISZERO,
  keccakBlocks,
  limbRows,
  LT,
  modRows,
  mulRows,
  shakiraRows,
  shfRows,
  stackDeltaAlpha,
} from './lineProfiles';
import type { TracerProfile } from './lineProfiles';
import type { TransactionCounting } from './transactionRows';

/** A frame's stack as the hooks read it: `peek(n)` gives the top n words, top first. */
export type Stack = { peek(n: number): bigint[]; length: number };

/** A running frame, as the counter follows it. */
export interface Frame {
  /** A creation's init code. */
  deploying: boolean;
  /** An explicit STOP, RETURN, REVERT or SELFDESTRUCT ended it (else it ran off its code). */
  halted: boolean;
  /** London: that instruction was STOP. */
  stopped?: boolean;
  /** London: its code's and its call data's sizes (what OOB compares a jump or a CALLDATALOAD with). */
  codeSize?: number;
  callDataSize?: number;
  /** London: where its call data sits in its caller's memory (0 for a transaction's). */
  callDataOffset?: bigint;
  /** ZkTracer: the undo rows its sections (and its finished children's) add if it is rolled back. */
  undo: number;
  /** A CALL or CREATE instruction ran and its message is next (settle). */
  pending?: 'call' | 'create';
  /** Where that message went: a precompile or a frame with code (none: an account without code). */
  child?: 'prc' | 'smc';
}

/** What the instructions' rows need of the counter, beyond what a transaction's rows need. */
export interface InstructionCounting extends TransactionCounting {
  readonly profile: TracerProfile;
  /**
   * London: the gas left once the last instruction was charged, which (no instruction but a call's
   * changes it after) is the gas the next one starts with.
   */
  readonly lastGasLeft: bigint;
  /** London: the argsOffset of the CALL whose frame starts next. */
  nextCallDataOffset: bigint | undefined;
  /** The frame running now. */
  top(): Frame;
  /** SELFDESTRUCT and explicit STOP/RETURN/REVERT end their frame (the frame hook counts it). */
  halt(stop?: boolean): void;
  /** STOP in a deployment, explicit or at the end of the init code: its rows beyond the table's. */
  deploymentStop(frame: Frame): void;
}

const MAX_STACK = 1024n;
/** G_callstipend: an SSTORE needs more gas than this (EIP-2200). */
const STIPEND = 2300n;
/** Stack operands beyond this are capped: the instruction would have run out of gas first. */
const SIZE_CAP = 1n << 40n;
const num = (n: bigint) => Number(n > SIZE_CAP ? SIZE_CAP : n);
export const hex = (n: bigint) => n.toString(16);

/** What the instruction `code` counts when it is about to run (undefined: its opcode count only). */
export function instructionHook(k: InstructionCounting, code: number): ((stack: Stack) => void) | undefined {
  if (k.mode === 'limitless') return limitlessHook(k, code);
  return both(operandHook(k, code), k.mode === 'osaka' ? sectionHook(k, code) : stackHeightHook(k, code));
}

/**
 * Rows for an arithmetic operation: London's formula (worked out only for a new operation), or one
 * row (Osaka), once per conflation. Answers whether the operation is new.
 */
export function arith(k: InstructionCounting, module: string, key: string, londonRows: () => number): boolean {
  return k.c.addOnce(key, module, k.profile.singleRowArithmetic ? 1 : londonRows);
}

/** Reads what an opcode's modules need from the stack, before the handler pops it. */
function operandHook(k: InstructionCounting, code: number): ((stack: Stack) => void) | undefined {
  const london = !k.profile.singleRowArithmetic;
  const two = (f: (a: bigint, b: bigint) => void) => (stack: Stack) => {
    const [a, b] = stack.peek(2);
    f(a, b);
  };
  const key = (a: bigint, b: bigint) => `${code}:${hex(a)}:${hex(b)}`;
  switch (code) {
    case 0x01: // ADD
    case 0x03: // SUB
      return two((a, b) => arith(k, 'ADD', key(a, b), () => addRows(code === 0x03, a, b)));
    case 0x02: // MUL
      return two((a, b) => arith(k, 'MUL', key(a, b), () => mulRows(false, a, b)));
    case 0x0a: // EXP
      return two((a, b) => {
        arith(k, 'MUL', key(a, b), () => mulRows(true, a, b));
        k.c.add('EXP', london ? 18 : 1);
      });
    case 0x04: // DIV
    case 0x05: // SDIV
    case 0x06: // MOD
    case 0x07: // SMOD
      return two((a, b) => arith(k, 'MOD', key(a, b), () => modRows(b)));
    case 0x08: // ADDMOD
    case 0x09: // MULMOD
      return (stack) => {
        const [a, b, n] = stack.peek(3);
        arith(k, 'EXT', `${key(a, b)}:${hex(n)}`, () => extRows(code === 0x09, a, b, n));
      };
    case 0x10: // LT
    case 0x11: // GT
    case 0x12: // SLT
    case 0x13: // SGT
    case 0x14: // EQ
      return two((a, b) => k.wcp(code, a, b));
    case 0x15: // ISZERO
      return (stack) => k.wcp(code, stack.peek(1)[0]);
    case 0x16: // AND
    case 0x17: // OR
    case 0x18: // XOR
    case 0x0b: // SIGNEXTEND
    case 0x1a: // BYTE
      if (!london) return undefined;
      return two((a, b) => k.c.addOnce(key(a, b), 'BIN', () => binRows(code, a, b)));
    case 0x19: // NOT
      if (!london) return undefined;
      return (stack) => {
        const [a] = stack.peek(1);
        k.c.addOnce(key(a, 0n), 'BIN', 16);
      };
    case 0x1b: // SHL
    case 0x1c: // SHR
    case 0x1d: // SAR
      return two((shift, value) => arith(k, 'SHF', key(shift, value), () => shfRows(code, shift)));
    case 0x20: // KECCAK256
      return two((offset, size) => {
        const n = num(size);
        mxp(k, n === 0 ? 'trivial' : 'word');
        move(k, n, offset, 0n);
        if (n > 0) {
          k.c.add('SHAKIRA_DATA', shakiraRows(n));
          k.c.add('BLOCK_KECCAK', keccakBlocks(n));
        }
      });
    case 0x31: // BALANCE
    case 0x3b: // EXTCODESIZE
    case 0x3f: // EXTCODEHASH
      return (stack) => k.trm(stack.peek(1)[0]);
    case 0xff: // SELFDESTRUCT
      return (stack) => {
        k.trm(stack.peek(1)[0]);
        k.halt();
      };
    case 0x35: // CALLDATALOAD
      return (stack) => {
        k.c.add('OOB', OOB.CDL);
        if (k.mode === 'london') callDataLoadComparisons(k, stack.peek(1)[0]);
      };
    case 0x37: // CALLDATACOPY
    case 0x39: // CODECOPY
    case 0x5e: // MCOPY
      return (stack) => copy(k, stack.peek(3));
    case 0x3e: // RETURNDATACOPY
      return (stack) => {
        k.c.add('OOB', OOB.RDC);
        copy(k, stack.peek(3));
      };
    case 0x40: // BLOCKHASH
      return (stack) => {
        const op = `${code}:${hex(stack.peek(1)[0])}`;
        k.c.addOnce(op, 'BLOCK_HASH', 6);
        k.c.addOnce(`${op}:wcp`, 'WCP', 65);
      };
    case 0x51: // MLOAD
    case 0x52: // MSTORE
      return (stack) => {
        const offset = stack.peek(1)[0];
        mxp(k, 'word');
        k.c.add('MMU', 4);
        k.c.add('MMIO', offset % 16n === 0n ? 2 : 32);
        // London's MMU divides the offset by a limb's 16 bytes (the offset as 8 bytes) and asks
        // whether the word is limb-aligned (MLoad.java, MStore.java: ISZERO of the remainder).
        if (k.mode !== 'london') return;
        k.euc(offset, 16n, 8);
        k.wcp(ISZERO, offset % 16n);
      };
    case 0x53: // MSTORE8
      return () => {
        mxp(k, 'byte');
        k.c.add('MMU', 3);
        k.c.add('MMIO', 16);
      };
    case 0x59: // MSIZE
      return () => mxp(k, 'msize');
    case 0x55: // SSTORE
      return () => {
        k.c.add('OOB', OOB.SSTORE);
        // London's OOB: the stipend below the gas the SSTORE starts with (SstoreOobCall).
        if (k.mode === 'london') k.wcp(LT, STIPEND, k.lastGasLeft);
      };
    case 0x56: // JUMP
      return (stack) => {
        k.c.add('OOB', OOB.JUMP);
        // London's OOB: the destination inside the code (JumpOobCall).
        if (k.mode === 'london') k.wcp(LT, stack.peek(1)[0], BigInt(k.top().codeSize ?? 0));
      };
    case 0x57: // JUMPI
      return (stack) => {
        k.c.add('OOB', OOB.JUMPI);
        // London's OOB: the destination inside the code, and the condition zero (JumpiOobCall).
        if (k.mode !== 'london') return;
        const [destination, condition] = stack.peek(2);
        k.wcp(LT, destination, BigInt(k.top().codeSize ?? 0));
        k.wcp(ISZERO, condition);
      };
    case 0xf0: // CREATE
    case 0xf5: // CREATE2
      return (stack) => {
        const [, offset, size] = stack.peek(3);
        const n = num(size);
        mxp(k, n === 0 ? 'trivial' : 'word');
        move(k, n, offset, 0n);
        k.c.add('OOB', OOB.CREATE);
        k.c.add('STP', london ? 3 : 1);
        k.c.add('GAS', london ? 3 : 1);
        k.c.add('RLP_ADDR', code === 0xf0 ? 8 : 6);
        k.c.add('BLOCK_KECCAK', 1);
        if (code === 0xf5 && n > 0) {
          k.c.add('SHAKIRA_DATA', shakiraRows(n));
          k.c.add('BLOCK_KECCAK', keccakBlocks(n));
        }
      };
    case 0xf1: // CALL
    case 0xf2: // CALLCODE
    case 0xf4: // DELEGATECALL
    case 0xfa: // STATICCALL
      return (stack) => {
        const withValue = code === 0xf1 || code === 0xf2;
        const s = stack.peek(withValue ? 7 : 6);
        const [argsOffset, argsSize, retOffset, retSize] = withValue ? s.slice(3) : s.slice(2);
        k.trm(s[1]);
        // The callee's call data sits at argsOffset in this frame's memory (London's MMU reads it there).
        if (k.mode === 'london') k.nextCallDataOffset = argsOffset;
        mxp(k, argsSize === 0n && retSize === 0n ? 'trivial' : 'word');
        move(k, num(argsSize), argsOffset, 0n);
        move(k, num(retSize), 0n, retOffset);
        k.c.add('OOB', OOB.CALL);
        k.c.add('STP', london ? 5 : 1);
        k.c.add('GAS', london ? 3 : 1);
      };
    case 0xf3: // RETURN
    case 0xfd: // REVERT
      return two((offset, size) => {
        k.halt();
        const n = num(size);
        mxp(k, n === 0 ? 'trivial' : 'word');
        move(k, n, offset, 0n);
      });
    case 0x00: // STOP
      return () => k.halt(true);
    default:
      if (code >= 0xa0 && code <= 0xa4)
        return two((offset, size) => {
          const n = num(size);
          mxp(k, n === 0 ? 'trivial' : 'word');
          move(k, n, offset, 0n);
        });
      return undefined;
  }
}

/**
 * ZkTracer's HUB sections beyond the instruction table (hubRowsOsakaTracer): rows that depend on
 * the instruction's operands or frame, undo rows a rollback of the frame would add, and the CALL
 * or CREATE whose message the next runCall settles (hub/section/**).
 */
function sectionHook(k: InstructionCounting, code: number): ((stack: Stack) => void) | undefined {
  const undo = (n: number) => () => {
    k.top().undo += n;
  };
  switch (code) {
    case 0x31: // BALANCE, EXTCODESIZE, EXTCODEHASH: AccountSection's undo ACC
    case 0x3b:
    case 0x3f:
    case 0x54: // SLOAD, SSTORE: undo STO
    case 0x55:
    case 0x5d: // TSTORE: undo transient row
      return undo(1);
    case 0xff: // SELFDESTRUCT: 2 undo ACC and a CON at the end of the transaction (5 + 1, or 8)
      return undo(2);
    case 0x5e: // MCOPY: a second IMC when it copies something
      return (stack) => {
        if (stack.peek(3)[2] !== 0n) k.c.add('HUB', 1);
      };
    case 0x00: // STOP in a deployment
      return () => k.deploymentStop(k.top());
    case 0xf3: // RETURN from a deployment: 6 (empty code) or 7 rows and an undo ACC
      return (stack) => {
        const frame = k.top();
        if (!frame.deploying) return;
        k.c.add('HUB', stack.peek(2)[1] === 0n ? 1 : 2);
        frame.undo++;
      };
    case 0xf0:
    case 0xf5:
      return () => {
        k.top().pending = 'create';
      };
    case 0xf1:
    case 0xf2:
    case 0xf4:
    case 0xfa:
      return () => {
        const frame = k.top();
        frame.pending = 'call';
        frame.undo += 2; // an aborted call's; settle adjusts it
      };
    default:
      return undefined;
  }
}

/**
 * ZkCounter.tracePreExecution, beyond the HUB rows (folded from the opcode counts): MXP, GAS, STP,
 * BLOCK_HASH, SHAKIRA_DATA, RLP_ADDR and BLOCK_KECCAK. Only KECCAK256 and CREATE2 read the stack,
 * and only when it holds their operands (a stack exception adds the instruction's stack rows instead).
 */
function limitlessHook(k: InstructionCounting, code: number): ((stack: Stack) => void) | undefined {
  // MXP whatever the size: NB_ROWS_MXP_UPDT_W, _UPDT_B, _MSIZE (the osaka MXP rows, mxp()).
  const word = () => mxp(k, 'word');
  switch (code) {
    case 0x40: // BLOCKHASH: NB_ROWS_BLOCKHASH
      return () => k.c.add('BLOCK_HASH', 6);
    case 0x59: // MSIZE
      return () => mxp(k, 'msize');
    case 0x53: // MSTORE8
      return () => mxp(k, 'byte');
    case 0x00: // STOP
      return () => {
        k.halt();
        k.deploymentStop(k.top());
      };
    case 0xf3: // RETURN
    case 0xfd: // REVERT
      return () => {
        k.halt();
        word();
      };
    case 0xff: // SELFDESTRUCT
      return () => k.halt();
    case 0x20: // SHA3
      return (stack) => {
        word();
        if (stack.length < 2) return k.c.add('HUB', 1); // stack exception: its stack row
        const size = clampedToInt(stack.peek(2)[1]);
        if (size === 0) return;
        k.c.add('SHAKIRA_DATA', limbRows(size) + 2);
        k.c.add('BLOCK_KECCAK', keccakBlocks(size));
      };
    case 0xf0: // CREATE
      return () => {
        k.c.add('GAS', 1);
        k.c.add('STP', 1);
        word();
        k.c.add('RLP_ADDR', 8);
        k.c.add('BLOCK_KECCAK', keccakBlocks(31)); // MAX_SIZE_RLP_HASH_CREATE
      };
    case 0xf5: // CREATE2
      return (stack) => {
        k.c.add('GAS', 1);
        k.c.add('STP', 1);
        word();
        k.c.add('RLP_ADDR', 6);
        k.c.add('BLOCK_KECCAK', keccakBlocks(85)); // MAX_SIZE_RLP_HASH_CREATE2
        if (stack.length < 4) return k.c.add('HUB', 2);
        const size = clampedToInt(stack.peek(3)[2]);
        k.c.add('SHAKIRA_DATA', limbRows(size) + 2);
        k.c.add('BLOCK_KECCAK', keccakBlocks(size));
      };
    case 0xf1: // CALL
    case 0xf2: // CALLCODE
    case 0xf4: // DELEGATECALL
    case 0xfa: // STATICCALL
      return () => {
        k.c.add('GAS', 1);
        word();
        k.c.add('STP', 1);
      };
    default:
      // LOGn, the COPY family, MCOPY, MLOAD, MSTORE: a word-priced memory update.
      if ((code >= 0xa0 && code <= 0xa4) || [0x37, 0x39, 0x3c, 0x3e, 0x5e, 0x51, 0x52].includes(code)) return word;
      return undefined;
  }
}

/**
 * London's CALLDATALOAD comparisons: OOB's, whether the offset is inside the call data
 * (CallDataLoadOobCall); when it is, the MMU's extraction of the word (mmu/instructions/
 * RightPaddedWordExtraction.java, 658ab6d1): the word's end against the call data's size, the
 * bytes it takes against a limb, and each limb's bytes against one limb's reach from its offset.
 */
function callDataLoadComparisons(k: InstructionCounting, offset: bigint): void {
  const frame = k.top();
  const size = BigInt(frame.callDataSize ?? 0);
  k.wcp(LT, offset, size);
  if (offset >= size) return;
  k.wcp(LT, offset + 32n, size);
  const extraction = offset + 32n < size ? 32n : size - offset;
  k.wcp(LT, extraction, 16n);
  const firstLimbPadded = extraction < 16n;
  const firstLimb = firstLimbPadded ? extraction : 16n;
  const secondLimb = offset + 32n < size ? 16n : firstLimbPadded ? 0n : extraction - 16n;
  k.euc(firstLimb, 16n, 1);
  const sourceOffset = offset + (frame.callDataOffset ?? 0n);
  k.euc(sourceOffset, 16n);
  const byteOffset = sourceOffset % 16n;
  k.wcp(LT, byteOffset + firstLimb, 17n);
  k.wcp(LT, byteOffset + secondLimb, 17n);
  k.wcp(ISZERO, secondLimb);
}

/**
 * London's stack checks (runtime/stack/Stack.java, 658ab6d1): every instruction asks WCP whether
 * the stack's height is below what it takes (underflow) and, when it is not, whether the height
 * after it is above 1,024 (overflow); WCP keeps each comparison once.
 */
function stackHeightHook(k: InstructionCounting, code: number): (stack: Stack) => void {
  const [delta, alpha] = stackDeltaAlpha(code);
  const d = BigInt(delta);
  return (stack) => {
    const height = BigInt(stack.length);
    k.wcp(LT, height, d);
    if (stack.length < delta) return;
    const after = BigInt(stack.length - delta + alpha);
    k.wcp(GT, after, MAX_STACK);
  };
}

type MxpKind = 'msize' | 'trivial' | 'word' | 'byte';
/** Today's MXP rows by instruction type. */
const OSAKA_MXP_ROWS: Record<MxpKind, number> = { msize: 4, trivial: 5, word: 14, byte: 13 };

/** MXP rows by instruction type (MxpOperation.java); London's: 1 for MSIZE or no memory, else 4. */
function mxp(k: InstructionCounting, kind: MxpKind): void {
  k.c.add('MXP', k.profile.singleRowArithmetic ? OSAKA_MXP_ROWS[kind] : kind === 'msize' || kind === 'trivial' ? 1 : 4);
}

/** *COPY with (destination, source, size) on the stack. */
export function copy(k: InstructionCounting, [dst, src, size]: bigint[]): void {
  const n = num(size);
  mxp(k, n === 0 ? 'trivial' : 'word');
  move(k, n, src, dst);
}

/** MMU and MMIO rows of a memory move of `size` bytes (approximate; see the profile notes). */
function move(k: InstructionCounting, size: number, src: bigint, dst: bigint): void {
  if (size === 0) return;
  const first = Number(dst % 16n);
  const limbs = Math.ceil((first + size) / 16);
  k.c.add('MMU', 1 + 5 + limbs);
  if (src % 16n !== dst % 16n) {
    k.c.add('MMIO', 16 * limbs);
    return;
  }
  let partial = (first !== 0 ? 1 : 0) + ((first + size) % 16 !== 0 ? 1 : 0);
  partial = Math.min(partial, limbs);
  k.c.add('MMIO', limbs - partial + 16 * partial);
}

/** Two stack readers as one. */
function both(
  a: ((stack: Stack) => void) | undefined,
  b: ((stack: Stack) => void) | undefined,
): ((stack: Stack) => void) | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return (stack) => {
    a(stack);
    b(stack);
  };
}
