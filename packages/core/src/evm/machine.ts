/**
 * The engine's interpreter and message layer: one run of message calls and creations on a World,
 * under a fork's rules, as geth and ethereumjs execute them. Gas is a number (a run's gas is below
 * 2^53, checked where the run starts); stack words are bigints in one preallocated array per frame;
 * a frame is a plain object and the step loop is one switch, with no event or promise per step: a
 * step awaits only when the state it reads is not yet in the World.
 */
import type { PrecompileInput } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../config/fastCrypto';

import type { AnalysedCode } from './code';
import { analyse } from './code';
import type { EngineHooks, MemoryView, MessageStart, RunState, StackView } from './hooks';
import { Memory } from './memory';
import type { ForkRules } from './rules';
import type { Account, Log, World } from './world';
import { hasCode, keyOf, paddedWordOf, wordBytes, wordOf } from './world';

/** What a block gives the code that runs in it. */
export interface BlockEnv {
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
  baseFee: bigint;
  /** PREVRANDAO after the merge (the header's mixHash), DIFFICULTY before. */
  prevRandao: Uint8Array;
  difficulty: bigint;
  blobBaseFee: bigint;
  chainId: bigint;
  /** BLOCKHASH: the hash of block `n` (within the 256 before this one). */
  blockHash(n: bigint): Promise<Uint8Array>;
}

/** What the transaction gives it. */
export interface TxEnv {
  origin: Uint8Array;
  gasPrice: bigint;
  blobHashes: Uint8Array[];
}

/** A precompile as ethereumjs implements it (@ethereumjs/evm's precompiles). */
export type Precompile = (input: PrecompileInput) => PrecompileResult | Promise<PrecompileResult>;
export interface PrecompileResult {
  executionGasUsed: bigint;
  returnValue: Uint8Array;
  exceptionError?: { error: string };
}

/** The outcome of a message: error names are ethereumjs's (EVMError), `revert` for REVERT. */
export interface Outcome {
  error: string | undefined;
  returnData: Uint8Array;
  gasLeft: number;
  /** A creation's address. */
  created?: Uint8Array;
}

export interface Message {
  caller: Uint8Array;
  callerKey: string;
  /** The account whose storage and balance the code runs with (a CALLCODE or DELEGATECALL: the caller's). */
  to: Uint8Array;
  toKey: string;
  /** Where the code comes from. */
  codeAddress: Uint8Array;
  codeKey: string;
  value: bigint;
  /** CALLVALUE: for a DELEGATECALL, its caller's. */
  apparentValue: bigint;
  data: Uint8Array;
  gas: number;
  isStatic: boolean;
  depth: number;
  /** No value moves (DELEGATECALL). */
  delegate: boolean;
}

const U256 = (1n << 256n) - 1n;
const SIGN = 1n << 255n;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** EIP-7702's delegation designator: 0xef0100 and an address. */
export const DELEGATION = new Uint8Array([0xef, 0x01, 0x00]);
/** A memory range past this many words costs more gas than any run has. */
const MAX_WORDS = 94_906_265; // the largest n with n * n below 2^53
const EMPTY = new Uint8Array(0);
const EMPTY_CODE = analyse(EMPTY);
/** Steps between two calls of the run's check (a clock read, in the caller's). */
const STEPS_PER_CHECK = 4096;

class Halt {
  constructor(readonly error: string) {}
}
const OOG = new Halt('out of gas');
const STACK_UNDERFLOW = new Halt('stack underflow');
const STACK_OVERFLOW = new Halt('stack overflow');
const INVALID_OPCODE = new Halt('invalid opcode');
const STATIC = new Halt('static state change');
const INITCODE_SIZE = new Halt('initcode exceeds max initcode size');

interface Frame {
  readonly msg: Message;
  readonly code: AnalysedCode;
  readonly account: Account;
  readonly stack: bigint[];
  sp: number;
  pc: number;
  gas: number;
  readonly memory: Memory;
  returnData: Uint8Array;
  /**
   * The opcode running (the last one run, once the frame ran off its code), as ethereumjs reports
   * it: an undefined one as INVALID (0xfe) once the frame has analysed its jumps (analysed).
   */
  op: number;
  /** ethereumjs analyses a frame's jump destinations at its first JUMP, JUMPI or MCOPY byte. */
  analysed: boolean;
  /** For the step hook: where the instruction starting now is, and the gas and memory it found. */
  stepPc: number;
  stepGas: number;
  stepWords: number;
  /** That instruction's step was given (or none is due). */
  stepped: boolean;
  /** An EXTCODECOPY's access cost, worked out before its charges (for the step of one that runs out of gas). */
  stepAccess: number;
  /** Its stack as hooks read it (made when first asked for). */
  view?: StackView;
  /** Its address and memory as hooks read them (made when first asked for). */
  hookFrame?: { address: Uint8Array; memory: MemoryView };
}

function addressOf(v: bigint): Uint8Array {
  return wordBytes(v & ADDRESS_MASK).subarray(12);
}

/** The code is an EIP-7702 delegation (the designator and an address). */
export function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === DELEGATION[0] && code[1] === DELEGATION[1] && code[2] === DELEGATION[2];
}

/** CREATE's address: the hash of RLP([caller, nonce]). */
export function createAddressOf(caller: Uint8Array, nonce: bigint): Uint8Array {
  const n = nonce === 0n ? EMPTY : wordBytes(nonce).subarray(32 - byteLength(nonce));
  const nonceRlp = n.length === 1 && n[0] < 0x80 ? n : concat(Uint8Array.of(0x80 + n.length), n);
  const payload = concat(Uint8Array.of(0x94), caller, nonceRlp);
  return keccak256(concat(Uint8Array.of(0xc0 + payload.length), payload)).subarray(12);
}

function byteLength(v: bigint): number {
  let n = 0;
  while (v > 0n) {
    n++;
    v >>= 8n;
  }
  return n;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Stacks and memories by call depth, reused from frame to frame and run to run: a frame ends before
 * another at its depth starts. One pool serves one run at a time (its owner runs them one by one).
 */
export class FramePool {
  readonly stacks: bigint[][] = [];
  readonly memories: Memory[] = [];
}

export class Machine {
  constructor(
    readonly rules: ForkRules,
    readonly world: World,
    readonly block: BlockEnv,
    readonly tx: TxEnv,
    /** The precompiles in force, by address key. */
    readonly precompiles: ReadonlyMap<string, Precompile>,
    /** The fork's precompiles, warm throughout (EIP-2929); overrides may move the ones in force. */
    private readonly warmPrecompiles: ReadonlyMap<string, unknown>,
    /** What a precompile is given beside its input (ethereumjs's EVM and Common). */
    private readonly precompileContext: Omit<PrecompileInput, 'data' | 'gasLimit'>,
    /** Called now and then while code runs: it throws to halt the run (a time limit), or gives a promise to pause on. */
    private readonly check: () => Promise<void> | undefined = () => undefined,
    /** What observes the run (the line counter), if anything does. */
    private readonly hooks?: EngineHooks,
    private readonly pool = new FramePool(),
  ) {}

  // ================================================================ messages

  /** A message call (CALL, CALLCODE, DELEGATECALL, STATICCALL, or a transaction's). */
  call(msg: Message): Promise<Outcome> {
    const hooks = this.hooks;
    if (hooks === undefined) return this.callMessage(msg);
    const start = messageStart(msg, false);
    hooks.enter(start);
    return this.callMessage(msg).then((out) => {
      hooks.exit(start, messageEnd(msg, out));
      return out;
    });
  }

  /**
   * A creation (CREATE, CREATE2, or a transaction's) at `address`, with `msg.data` as init code; the
   * caller's nonce has been moved on by the caller (a transaction's, or the opcode).
   */
  create(msg: Message, address: Uint8Array): Promise<Outcome> {
    const hooks = this.hooks;
    if (hooks === undefined) return this.createMessage(msg, address);
    const start = messageStart(msg, true);
    hooks.enter(start);
    return this.createMessage(msg, address).then((out) => {
      hooks.exit(start, messageEnd(msg, out));
      return out;
    });
  }

  private async callMessage(msg: Message): Promise<Outcome> {
    const { world } = this;
    const mark = world.checkpoint();
    const to = await world.account(msg.toKey, msg.to);
    if (!msg.delegate) {
      const from = await world.account(msg.callerKey, msg.caller);
      if (from.balance < msg.value) return { error: 'insufficient balance', returnData: EMPTY, gasLeft: msg.gas };
      world.setBalance(from, from.balance - msg.value);
      world.setBalance(to, to.balance + msg.value);
      world.touch(to);
    }
    const precompile = this.precompiles.get(msg.codeKey);
    if (precompile !== undefined) {
      const result = await precompile({ ...this.precompileContext, data: msg.data, gasLimit: BigInt(msg.gas) });
      this.hooks?.precompile(precompile, msg.data, result);
      if (result.exceptionError !== undefined) {
        world.revert(mark);
        return { error: result.exceptionError.error, returnData: EMPTY, gasLeft: 0 };
      }
      return { error: undefined, returnData: result.returnValue, gasLeft: msg.gas - Number(result.executionGasUsed) };
    }
    const codeAccount = msg.codeKey === msg.toKey ? to : await world.account(msg.codeKey, msg.codeAddress);
    let code = await world.code(codeAccount);
    if (this.rules.eip7702 && isDelegation(code.code)) {
      // EIP-7702: the designated account's code (a precompile has none); warm at the top frame.
      const target = code.code.subarray(3);
      const targetKey = keyOf(target);
      if (msg.depth === 0) world.preWarmAddress(targetKey);
      code = this.precompiles.has(targetKey) ? EMPTY_CODE : await world.code(await world.account(targetKey, target));
    }
    if (code.code.length === 0) return { error: undefined, returnData: EMPTY, gasLeft: msg.gas };
    const out = await this.execute(msg, code, to, false);
    if (out.error !== undefined) world.revert(mark);
    return out;
  }

  private async createMessage(msg: Message, address: Uint8Array): Promise<Outcome> {
    const { world, rules } = this;
    const key = keyOf(address);
    if (rules.berlin) world.warmAddress(key);
    const mark = world.checkpoint();
    const target = await world.account(key, address);
    if (target.nonce > 0n || hasCode(target) || target.hadStorage)
      return { error: 'create collision', returnData: EMPTY, gasLeft: 0, created: address };
    const from = await world.account(msg.callerKey, msg.caller);
    if (from.balance < msg.value) {
      world.revert(mark);
      return { error: 'insufficient balance', returnData: EMPTY, gasLeft: msg.gas, created: address };
    }
    world.create(target);
    if (rules.spuriousDragon) world.setNonce(target, 1n);
    world.setBalance(from, from.balance - msg.value);
    world.setBalance(target, target.balance + msg.value);
    const frameMsg: Message = { ...msg, to: address, toKey: key, codeAddress: address, codeKey: key, data: EMPTY };
    const out =
      msg.data.length === 0
        ? { error: undefined, returnData: EMPTY, gasLeft: msg.gas }
        : await this.execute(frameMsg, analyse(msg.data), target, true);
    out.created = address;
    if (out.error !== undefined) {
      world.revert(mark);
      return out;
    }
    const code = out.returnData;
    if (code.length > rules.maxCodeSize) {
      world.revert(mark);
      return {
        error: 'code size to deposit exceeds maximum code size',
        returnData: EMPTY,
        gasLeft: 0,
        created: address,
      };
    }
    const deposit = code.length * rules.createDataGas;
    if (deposit > out.gasLeft) {
      if (!rules.homestead) return { error: undefined, returnData: EMPTY, gasLeft: out.gasLeft, created: address };
      world.revert(mark);
      return { error: 'out of gas', returnData: EMPTY, gasLeft: 0, created: address };
    }
    if (rules.eip3541 && code.length > 0 && code[0] === 0xef) {
      world.revert(mark);
      return { error: 'invalid bytecode deployed', returnData: EMPTY, gasLeft: 0, created: address };
    }
    if (code.length > 0) world.setCode(target, code, keccak256(code));
    // The code deployed is the answer of a creation at the top (an opcode's return data stays empty).
    return { error: undefined, returnData: code, gasLeft: out.gasLeft - deposit, created: address };
  }

  // ================================================================ the interpreter

  private async execute(msg: Message, code: AnalysedCode, account: Account, isCreate: boolean): Promise<Outcome> {
    const pause = this.check();
    if (pause !== undefined) await pause;
    const depth = msg.depth;
    const memory = (this.pool.memories[depth] ??= new Memory());
    memory.reset();
    const frame: Frame = {
      msg,
      code,
      account,
      stack: (this.pool.stacks[depth] ??= new Array<bigint>(1024)),
      sp: 0,
      pc: 0,
      gas: msg.gas,
      memory,
      returnData: EMPTY,
      op: 0,
      analysed: false,
      stepPc: 0,
      stepGas: 0,
      stepWords: 0,
      stepped: true,
      stepAccess: 0,
    };
    const hooks = this.hooks;
    if (hooks !== undefined)
      hooks.frameStart({ code: code.code, isCreate, address: msg.codeAddress, data: msg.data, depth: msg.depth });
    let out: Outcome;
    try {
      out = await this.run(frame);
    } catch (e) {
      if (!(e instanceof Halt)) throw e;
      // An instruction that failed before its step was given: its step, charged what ethereumjs's
      // step reports of it.
      if (!frame.stepped && hooks?.step !== undefined) await this.step(frame, hooks, this.failedCost(frame, e));
      out = { error: e.error, returnData: EMPTY, gasLeft: 0 };
    }
    if (hooks !== undefined)
      hooks.frameEnd({
        error: out.error,
        gasLeft: out.gasLeft,
        returnData: out.returnData,
        opCode: frame.op,
        pc: frame.pc,
        stack: this.view(frame),
        memoryWords: frame.memory.words,
        memory: this.frameView(frame).memory,
        refund: this.world.refund,
      });
    return out;
  }

  /** The frame's stack as hooks read it. */
  private view(f: Frame): StackView {
    return (f.view ??= {
      get length() {
        return f.sp;
      },
      peek(n = 1) {
        if (f.sp < n) throw STACK_UNDERFLOW;
        const out = new Array<bigint>(n);
        for (let i = 0; i < n; i++) out[i] = f.stack[f.sp - 1 - i];
        return out;
      },
    });
  }

  /** The frame's address and memory as hooks read them. */
  private frameView(f: Frame): { address: Uint8Array; memory: MemoryView } {
    return (f.hookFrame ??= { address: f.msg.to, memory: { read: (offset, size) => f.memory.padded(offset, size) } });
  }

  /**
   * The hooks' turn: the instruction passed its checks and paid its gas. Its step first, if the
   * hooks take steps: charged what it paid.
   */
  private opcodeHook(f: Frame, hooks: EngineHooks): Promise<void> | void {
    if (!f.stepped && hooks.step !== undefined) {
      const given = this.step(f, hooks, f.stepGas - f.gas);
      if (given !== undefined) return given.then(() => this.opcodeHook(f, hooks));
    }
    return hooks.opcode(f.op, this.view(f), f.gas, (this.runState ??= this.stateView()), this.frameView(f));
  }

  /**
   * What ethereumjs's step reports as the cost of an instruction that failed before it was charged
   * (interpreter.ts runs an opcode's gas handler, then the step, then the charge): out of gas, the
   * whole cost its gas handler works out in 256-bit integers (opcodes/gas.ts at 10.1.3), where the
   * engine charges in parts and stops at the first it cannot pay; its static fee where the handler
   * itself fails (a missing operand, a write in a static call, RETURNDATACOPY past the data, a CALL
   * it cannot pay for) or the opcode does not exist.
   */
  private failedCost(f: Frame, error: Halt): bigint {
    const r = this.rules;
    const op = f.code.code[f.stepPc];
    const fee = r.fee[op];
    const base = BigInt(fee < 0 ? 0 : fee);
    if (error !== OOG) return base;
    const s = (i: number) => f.stack[f.sp - 1 - i];
    let words = BigInt(f.stepWords);
    const memoryCost = (n: bigint) => n * BigInt(r.memoryGas) + (n * n) / BigInt(r.quadCoefficientDivGas);
    // ethereumjs's subMemUsage: the memory grown to cover [offset, offset + size), its cost since the last growth.
    const memory = (offset: bigint, size: bigint): bigint => {
      if (size === 0n) return 0n;
      const next = (offset + size + 31n) / 32n;
      if (next <= words) return 0n;
      const cost = memoryCost(next) - memoryCost(words);
      words = next;
      return cost;
    };
    const wordsOf = (size: bigint) => (size + 31n) / 32n;
    switch (op) {
      case 0x20: // KECCAK256
        return base + memory(s(0), s(1)) + BigInt(r.keccak256WordGas) * wordsOf(s(1));
      case 0x37: // CALLDATACOPY
      case 0x39: // CODECOPY
        return base + memory(s(0), s(2)) + BigInt(r.copyGas) * wordsOf(s(2));
      case 0x3c: // EXTCODECOPY
        return base + BigInt(f.stepAccess) + memory(s(1), s(3)) + BigInt(r.copyGas) * wordsOf(s(3));
      case 0x3e: // RETURNDATACOPY
        if (s(1) + s(2) > BigInt(f.returnData.length)) return base;
        return base + memory(s(0), s(2)) + BigInt(r.copyGas) * wordsOf(s(2));
      case 0x51: // MLOAD
      case 0x52: // MSTORE
        return base + memory(s(0), 32n);
      case 0x53: // MSTORE8
        return base + memory(s(0), 1n);
      case 0x5e: // MCOPY
        return base + BigInt(r.copyGas) * wordsOf(s(2)) + memory(s(1), s(2)) + memory(s(0), s(2));
      case 0xa0:
      case 0xa1:
      case 0xa2:
      case 0xa3:
      case 0xa4: // LOG0..LOG4
        return base + memory(s(0), s(1)) + BigInt(r.logTopicGas * (op - 0xa0)) + s(1) * BigInt(r.logDataGas);
      case 0xf3: // RETURN
      case 0xfd: // REVERT
        return base + memory(s(0), s(1));
      case 0xf0: // CREATE
      case 0xf5: // CREATE2
        return (
          base +
          memory(s(1), s(2)) +
          (r.eip3860 ? BigInt(r.initCodeWordGas) * wordsOf(s(2)) : 0n) +
          (op === 0xf5 ? BigInt(r.keccak256WordGas) * wordsOf(s(2)) : 0n)
        );
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        return base;
      default:
        // One charge of everything, which went below zero.
        return BigInt(f.stepGas - f.gas);
    }
  }

  /** The step of the instruction starting at f.stepPc, charged `cost`. */
  private step(f: Frame, hooks: EngineHooks, cost: number | bigint): Promise<void> | void {
    f.stepped = true;
    return hooks.step?.({
      pc: f.stepPc,
      op: f.code.code[f.stepPc],
      gasLeft: f.stepGas,
      cost: BigInt(cost),
      depth: f.msg.depth,
      stack: f.stack.slice(0, f.sp),
      memory: this.frameView(f).memory,
      memoryWords: f.stepWords,
      refund: this.world.refund,
      address: f.msg.to,
      state: (this.runState ??= this.stateView()),
    });
  }

  /** The state as this run sees it, for hooks (made when first asked for). */
  private runState: RunState | undefined;

  private stateView(): RunState {
    const world = this.world;
    return {
      code: async (address) => (await world.code(await world.account(keyOf(address), address))).code,
      balance: async (address) => (await world.account(keyOf(address), address)).balance,
      storage: async (address, slot) => {
        const account = await world.account(keyOf(address), address);
        return wordBytes(await world.sload(account, wordOf(slot)));
      },
    };
  }

  /** Memory expansion to cover `[offset, offset + size)`: its gas is taken from the frame. */
  private expand(f: Frame, offset: bigint, size: bigint): void {
    if (size === 0n) return;
    const end = offset + size;
    if (end > 0xffffffffn) throw OOG;
    const words = Math.ceil(Number(end) / 32);
    const mem = f.memory;
    if (words <= mem.words) return;
    if (words > MAX_WORDS) throw OOG;
    const r = this.rules;
    const cost = (n: number) => n * r.memoryGas + Math.floor((n * n) / r.quadCoefficientDivGas);
    f.gas -= cost(words) - cost(mem.words);
    if (f.gas < 0) throw OOG;
    mem.grow(words);
  }

  private useGas(f: Frame, gas: number): void {
    f.gas -= gas;
    if (f.gas < 0) throw OOG;
  }

  private async run(f: Frame): Promise<Outcome> {
    const { rules, world, block, tx, hooks } = this;
    const fee = rules.fee;
    const dynamic = rules.dynamic;
    const code = f.code.code;
    const jumpdests = f.code.jumpdests;
    const stack = f.stack;
    const msg = f.msg;
    const stepping = hooks?.step !== undefined;
    let steps = 0;
    const need = (n: number) => {
      if (f.sp < n) throw STACK_UNDERFLOW;
    };
    const push = (v: bigint) => {
      if (f.sp >= 1024) throw STACK_OVERFLOW;
      stack[f.sp++] = v;
    };
    for (;;) {
      if (++steps === STEPS_PER_CHECK) {
        steps = 0;
        const pause = this.check();
        if (pause !== undefined) await pause;
      }
      // Past its code a frame stops, without a step (as ethereumjs's loop ends).
      if (f.pc >= code.length) return { error: undefined, returnData: EMPTY, gasLeft: f.gas };
      const op = code[f.pc];
      f.op = op;
      if (stepping) {
        f.stepPc = f.pc;
        f.stepGas = f.gas;
        f.stepWords = f.memory.words;
        f.stepped = false;
      }
      const base = fee[op];
      if (base < 0) {
        if (f.analysed) f.op = 0xfe;
        throw INVALID_OPCODE;
      }
      f.pc++;
      // An opcode with dynamic gas checks its operands first and is charged its static gas with the
      // rest, in its case below (ethereumjs's gas handler); then the hooks, then what it does.
      if (dynamic[op] === 0) {
        f.gas -= base;
        if (f.gas < 0) throw OOG;
        if (hooks !== undefined) {
          const p = this.opcodeHook(f, hooks);
          if (p !== undefined) await p;
        }
      }
      let a: bigint;
      let b: bigint;
      let c: bigint;
      switch (op) {
        case 0x00: // STOP
          return { error: undefined, returnData: EMPTY, gasLeft: f.gas };
        case 0x01: // ADD
          need(2);
          f.sp--;
          stack[f.sp - 1] = (stack[f.sp] + stack[f.sp - 1]) & U256;
          break;
        case 0x02: // MUL
          need(2);
          f.sp--;
          stack[f.sp - 1] = (stack[f.sp] * stack[f.sp - 1]) & U256;
          break;
        case 0x03: // SUB
          need(2);
          f.sp--;
          stack[f.sp - 1] = (stack[f.sp] - stack[f.sp - 1]) & U256;
          break;
        case 0x04: // DIV
          need(2);
          f.sp--;
          b = stack[f.sp - 1];
          stack[f.sp - 1] = b === 0n ? 0n : stack[f.sp] / b;
          break;
        case 0x05: // SDIV
          need(2);
          f.sp--;
          a = signed(stack[f.sp]);
          b = signed(stack[f.sp - 1]);
          stack[f.sp - 1] = b === 0n ? 0n : (a / b) & U256;
          break;
        case 0x06: // MOD
          need(2);
          f.sp--;
          b = stack[f.sp - 1];
          stack[f.sp - 1] = b === 0n ? 0n : stack[f.sp] % b;
          break;
        case 0x07: // SMOD
          need(2);
          f.sp--;
          a = signed(stack[f.sp]);
          b = signed(stack[f.sp - 1]);
          stack[f.sp - 1] = b === 0n ? 0n : (a % b) & U256;
          break;
        case 0x08: // ADDMOD
          need(3);
          f.sp -= 2;
          c = stack[f.sp - 1];
          stack[f.sp - 1] = c === 0n ? 0n : (stack[f.sp + 1] + stack[f.sp]) % c;
          break;
        case 0x09: // MULMOD
          need(3);
          f.sp -= 2;
          c = stack[f.sp - 1];
          stack[f.sp - 1] = c === 0n ? 0n : (stack[f.sp + 1] * stack[f.sp]) % c;
          break;
        case 0x0a: {
          // EXP
          need(2);
          a = stack[f.sp - 1];
          b = stack[f.sp - 2];
          this.useGas(f, base + (b === 0n ? 0 : byteLength(b) * rules.expByteGas));
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          f.sp--;
          stack[f.sp - 1] = b === 0n ? 1n : a === 0n ? 0n : modPow(a, b);
          break;
        }
        case 0x0b: {
          // SIGNEXTEND
          need(2);
          f.sp--;
          a = stack[f.sp];
          b = stack[f.sp - 1];
          if (a < 31n) {
            const bit = a * 8n + 7n;
            const mask = (1n << bit) - 1n;
            stack[f.sp - 1] = (b >> bit) & 1n ? b | (U256 ^ mask) : b & mask;
          }
          break;
        }
        case 0x10: // LT
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] < stack[f.sp - 1] ? 1n : 0n;
          break;
        case 0x11: // GT
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] > stack[f.sp - 1] ? 1n : 0n;
          break;
        case 0x12: // SLT
          need(2);
          f.sp--;
          stack[f.sp - 1] = signed(stack[f.sp]) < signed(stack[f.sp - 1]) ? 1n : 0n;
          break;
        case 0x13: // SGT
          need(2);
          f.sp--;
          stack[f.sp - 1] = signed(stack[f.sp]) > signed(stack[f.sp - 1]) ? 1n : 0n;
          break;
        case 0x14: // EQ
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] === stack[f.sp - 1] ? 1n : 0n;
          break;
        case 0x15: // ISZERO
          need(1);
          stack[f.sp - 1] = stack[f.sp - 1] === 0n ? 1n : 0n;
          break;
        case 0x16: // AND
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] & stack[f.sp - 1];
          break;
        case 0x17: // OR
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] | stack[f.sp - 1];
          break;
        case 0x18: // XOR
          need(2);
          f.sp--;
          stack[f.sp - 1] = stack[f.sp] ^ stack[f.sp - 1];
          break;
        case 0x19: // NOT
          need(1);
          stack[f.sp - 1] = U256 ^ stack[f.sp - 1];
          break;
        case 0x1a: // BYTE
          need(2);
          f.sp--;
          a = stack[f.sp];
          stack[f.sp - 1] = a < 32n ? (stack[f.sp - 1] >> (8n * (31n - a))) & 0xffn : 0n;
          break;
        case 0x1b: // SHL
          need(2);
          f.sp--;
          a = stack[f.sp];
          stack[f.sp - 1] = a < 256n ? (stack[f.sp - 1] << a) & U256 : 0n;
          break;
        case 0x1c: // SHR
          need(2);
          f.sp--;
          a = stack[f.sp];
          stack[f.sp - 1] = a < 256n ? stack[f.sp - 1] >> a : 0n;
          break;
        case 0x1d: {
          // SAR
          need(2);
          f.sp--;
          a = stack[f.sp];
          b = signed(stack[f.sp - 1]);
          stack[f.sp - 1] = (a < 256n ? b >> a : b < 0n ? -1n : 0n) & U256;
          break;
        }
        case 0x1e: // CLZ (EIP-7939)
          need(1);
          a = stack[f.sp - 1];
          stack[f.sp - 1] = a === 0n ? 256n : BigInt(256 - a.toString(2).length);
          break;
        case 0x20: {
          // KECCAK256
          need(2);
          a = stack[f.sp - 1];
          b = stack[f.sp - 2];
          this.useGas(f, base);
          this.expand(f, a, b);
          this.useGas(f, Math.ceil(Number(b) / 32) * rules.keccak256WordGas);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          f.sp--;
          const data = b === 0n ? EMPTY : f.memory.buf.subarray(Number(a), Number(a + b));
          stack[f.sp - 1] = wordOf(keccak256(data));
          break;
        }
        case 0x30: // ADDRESS
          push(wordOf(msg.to));
          break;
        case 0x31: // BALANCE
        case 0x3b: // EXTCODESIZE
        case 0x3f: {
          // EXTCODEHASH. The account is warmed before the gas is charged, as ethereumjs warms it in
          // the gas handler.
          need(1);
          const target = addressOf(stack[f.sp - 1]);
          const key = keyOf(target);
          this.useGas(f, base + this.accessCost(key));
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          const acct = await world.account(key, target);
          if (op === 0x31) stack[f.sp - 1] = acct.balance;
          else if (op === 0x3b) stack[f.sp - 1] = BigInt((await world.code(acct)).code.length);
          else stack[f.sp - 1] = !acct.exists || acct.empty ? 0n : wordOf(acct.codeHash);
          break;
        }
        case 0x32: // ORIGIN
          push(wordOf(tx.origin));
          break;
        case 0x33: // CALLER
          push(wordOf(msg.caller));
          break;
        case 0x34: // CALLVALUE
          push(msg.apparentValue);
          break;
        case 0x35: {
          // CALLDATALOAD
          need(1);
          a = stack[f.sp - 1];
          const data = msg.data;
          stack[f.sp - 1] = a >= BigInt(data.length) ? 0n : paddedWordOf(data, Number(a), 32);
          break;
        }
        case 0x36: // CALLDATASIZE
          push(BigInt(msg.data.length));
          break;
        case 0x37: // CALLDATACOPY
          this.copyGas(f, base);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          this.copy(f, msg.data);
          break;
        case 0x38: // CODESIZE
          push(BigInt(code.length));
          break;
        case 0x39: // CODECOPY
          this.copyGas(f, base);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          this.copy(f, code);
          break;
        case 0x3a: // GASPRICE
          push(tx.gasPrice);
          break;
        case 0x3c: {
          // EXTCODECOPY
          need(4);
          const target = addressOf(stack[f.sp - 1]);
          const key = keyOf(target);
          const memOffset = stack[f.sp - 2];
          const codeOffset = stack[f.sp - 3];
          const size = stack[f.sp - 4];
          const access = this.accessCost(key);
          f.stepAccess = access;
          this.useGas(f, base);
          this.expand(f, memOffset, size);
          this.useGas(f, Math.ceil(Number(size) / 32) * rules.copyGas + access);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          f.sp -= 4;
          const acct = await world.account(key, target);
          if (size > 0n) {
            const ext = (await world.code(acct)).code;
            f.memory.write(
              Number(memOffset),
              ext,
              codeOffset > BigInt(ext.length) ? ext.length : Number(codeOffset),
              Number(size),
            );
          }
          break;
        }
        case 0x3d: // RETURNDATASIZE
          push(BigInt(f.returnData.length));
          break;
        case 0x3e: {
          // RETURNDATACOPY
          need(3);
          const memOffset = stack[f.sp - 1];
          const dataOffset = stack[f.sp - 2];
          const size = stack[f.sp - 3];
          // Past the end of the return data: out of gas, as ethereumjs has it (geth: "return data out of bounds").
          if (dataOffset + size > BigInt(f.returnData.length)) throw OOG;
          this.useGas(f, base);
          this.expand(f, memOffset, size);
          this.useGas(f, Math.ceil(Number(size) / 32) * rules.copyGas);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          f.sp -= 3;
          if (size > 0n) f.memory.write(Number(memOffset), f.returnData, Number(dataOffset), Number(size));
          break;
        }
        case 0x40: {
          // BLOCKHASH
          need(1);
          a = stack[f.sp - 1];
          const n = block.number;
          stack[f.sp - 1] = a >= n || n - a > 256n ? 0n : wordOf(await block.blockHash(a));
          break;
        }
        case 0x41: // COINBASE
          push(wordOf(block.coinbase));
          break;
        case 0x42: // TIMESTAMP
          push(block.timestamp);
          break;
        case 0x43: // NUMBER
          push(block.number);
          break;
        case 0x44: // DIFFICULTY / PREVRANDAO
          push(rules.paris ? wordOf(block.prevRandao) : block.difficulty);
          break;
        case 0x45: // GASLIMIT
          push(block.gasLimit);
          break;
        case 0x46: // CHAINID
          push(block.chainId);
          break;
        case 0x47: // SELFBALANCE
          push((await world.account(msg.toKey, msg.to)).balance);
          break;
        case 0x48: // BASEFEE
          push(block.baseFee);
          break;
        case 0x49: {
          // BLOBHASH
          need(1);
          a = stack[f.sp - 1];
          stack[f.sp - 1] = a < BigInt(tx.blobHashes.length) ? wordOf(tx.blobHashes[Number(a)]) : 0n;
          break;
        }
        case 0x4a: // BLOBBASEFEE
          push(block.blobBaseFee);
          break;
        case 0x50: // POP
          need(1);
          f.sp--;
          break;
        case 0x51: {
          // MLOAD
          need(1);
          a = stack[f.sp - 1];
          this.useGas(f, base);
          this.expand(f, a, 32n);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          stack[f.sp - 1] = wordOf(f.memory.buf, Number(a), Number(a) + 32);
          break;
        }
        case 0x52: // MSTORE
        case 0x53: {
          // MSTORE8. The memory's gas before the value is taken (ethereumjs's order).
          need(1);
          a = stack[f.sp - 1];
          this.useGas(f, base);
          this.expand(f, a, op === 0x52 ? 32n : 1n);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          need(2);
          b = stack[f.sp - 2];
          f.sp -= 2;
          if (op === 0x52) f.memory.buf.set(wordBytes(b), Number(a));
          else f.memory.buf[Number(a)] = Number(b & 0xffn);
          break;
        }
        case 0x54: {
          // SLOAD
          need(1);
          a = stack[f.sp - 1];
          // Warmed before the gas is charged, as ethereumjs warms it in the gas handler.
          this.useGas(
            f,
            base + (rules.berlin ? (world.warmSlot(f.account, a) ? rules.coldsloadGas : rules.warmstoragereadGas) : 0),
          );
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          const v = world.sload(f.account, a);
          stack[f.sp - 1] = typeof v === 'bigint' ? v : await v;
          break;
        }
        case 0x55: // SSTORE
          await this.sstore(f, base);
          break;
        case 0x56: {
          // JUMP
          f.analysed = true;
          need(1);
          a = stack[--f.sp];
          if (a >= BigInt(code.length) || jumpdests[Number(a)] !== 1) throw invalidJump(f);
          f.pc = Number(a);
          break;
        }
        case 0x57: {
          // JUMPI
          f.analysed = true;
          need(2);
          a = stack[f.sp - 1];
          b = stack[f.sp - 2];
          f.sp -= 2;
          if (b !== 0n) {
            if (a >= BigInt(code.length) || jumpdests[Number(a)] !== 1) throw invalidJump(f);
            f.pc = Number(a);
          }
          break;
        }
        case 0x58: // PC
          push(BigInt(f.pc - 1));
          break;
        case 0x59: // MSIZE
          push(BigInt(f.memory.words * 32));
          break;
        case 0x5a: // GAS
          push(BigInt(f.gas));
          break;
        case 0x5b: // JUMPDEST
          break;
        case 0x5c: // TLOAD
          need(1);
          stack[f.sp - 1] = world.tload(msg.toKey, stack[f.sp - 1]);
          break;
        case 0x5d: // TSTORE
          if (msg.isStatic) throw STATIC;
          need(2);
          world.tstore(msg.toKey, stack[f.sp - 1], stack[f.sp - 2]);
          f.sp -= 2;
          break;
        case 0x5e: {
          // MCOPY
          f.analysed = true;
          need(3);
          const dst = stack[f.sp - 1];
          const src = stack[f.sp - 2];
          const size = stack[f.sp - 3];
          this.useGas(f, base + Math.ceil(Number(size) / 32) * rules.copyGas);
          this.expand(f, src, size);
          this.expand(f, dst, size);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          f.sp -= 3;
          if (size > 0n) f.memory.buf.copyWithin(Number(dst), Number(src), Number(src + size));
          break;
        }
        case 0x5f: // PUSH0
          push(0n);
          break;
        case 0xa0:
        case 0xa1:
        case 0xa2:
        case 0xa3:
        case 0xa4:
          await this.log(f, op - 0xa0, base);
          break;
        case 0xf0: // CREATE
        case 0xf5: // CREATE2
          await this.createOp(f, op === 0xf5, base);
          break;
        case 0xf1: // CALL
        case 0xf2: // CALLCODE
        case 0xf4: // DELEGATECALL
        case 0xfa: // STATICCALL
          await this.callOp(f, op, base);
          break;
        case 0xf3: // RETURN
        case 0xfd: {
          // REVERT
          need(2);
          a = stack[f.sp - 1];
          b = stack[f.sp - 2];
          this.useGas(f, base);
          this.expand(f, a, b);
          if (hooks !== undefined) await this.opcodeHook(f, hooks);
          return {
            error: op === 0xfd ? 'revert' : undefined,
            returnData: b === 0n ? EMPTY : f.memory.read(Number(a), Number(b)),
            gasLeft: f.gas,
          };
        }
        case 0xff: // SELFDESTRUCT
          await this.selfdestruct(f, base);
          return { error: undefined, returnData: EMPTY, gasLeft: f.gas };
        default:
          if (op >= 0x60 && op <= 0x7f) {
            // PUSH1..PUSH32
            const n = op - 0x5f;
            const v = paddedWordOf(code, f.pc, n);
            f.pc += n;
            push(v);
          } else if (op >= 0x80 && op <= 0x8f) {
            // DUP1..DUP16
            const n = op - 0x7f;
            need(n);
            push(stack[f.sp - n]);
          } else if (op >= 0x90 && op <= 0x9f) {
            // SWAP1..SWAP16
            const n = op - 0x8f;
            need(n + 1);
            const top = stack[f.sp - 1];
            stack[f.sp - 1] = stack[f.sp - 1 - n];
            stack[f.sp - 1 - n] = top;
          } else throw INVALID_OPCODE;
      }
    }
  }

  /** EIP-2929: the access cost of an address (cold or warm), warming it (the gas is the caller's to charge). */
  private accessCost(key: string): number {
    if (!this.rules.berlin) return 0;
    const cold = this.world.warmAddress(key) && !this.warmPrecompiles.has(key);
    return cold ? this.rules.coldaccountaccessGas : this.rules.warmstoragereadGas;
  }

  /** CALLDATACOPY, CODECOPY's gas: memory offset, source offset, size on the stack. */
  private copyGas(f: Frame, base: number): void {
    if (f.sp < 3) throw STACK_UNDERFLOW;
    const size = f.stack[f.sp - 3];
    this.useGas(f, base);
    this.expand(f, f.stack[f.sp - 1], size);
    this.useGas(f, Math.ceil(Number(size) / 32) * this.rules.copyGas);
  }

  /** CALLDATACOPY, CODECOPY, once charged (copyGas). */
  private copy(f: Frame, source: Uint8Array): void {
    const memOffset = f.stack[f.sp - 1];
    const from = f.stack[f.sp - 2];
    const size = f.stack[f.sp - 3];
    f.sp -= 3;
    if (size > 0n)
      f.memory.write(
        Number(memOffset),
        source,
        from > BigInt(source.length) ? source.length : Number(from),
        Number(size),
      );
  }

  private async log(f: Frame, topics: number, base: number): Promise<void> {
    // ethereumjs's order: the static check, the gas (of the offset and size), then its two operands
    // taken and then the topics.
    if (f.msg.isStatic) throw STATIC;
    if (f.sp < 2) throw STACK_UNDERFLOW;
    const offset = f.stack[f.sp - 1];
    const size = f.stack[f.sp - 2];
    this.useGas(f, base);
    this.expand(f, offset, size);
    this.useGas(f, topics * this.rules.logTopicGas + Number(size) * this.rules.logDataGas);
    if (this.hooks !== undefined) await this.opcodeHook(f, this.hooks);
    f.sp -= 2;
    if (f.sp < topics) throw STACK_UNDERFLOW;
    const list: Uint8Array[] = [];
    for (let i = 0; i < topics; i++) list.push(wordBytes(f.stack[f.sp - 1 - i]));
    f.sp -= topics;
    const log: Log = {
      address: f.msg.to,
      topics: list,
      data: size === 0n ? EMPTY : f.memory.read(Number(offset), Number(size)),
    };
    this.world.log(log);
  }

  private async sstore(f: Frame, base: number): Promise<void> {
    const { rules, world } = this;
    if (f.msg.isStatic) throw STATIC;
    if (f.sp < 2) throw STACK_UNDERFLOW;
    const slot = f.stack[f.sp - 1];
    const value = f.stack[f.sp - 2];
    const account = f.account;
    const cur = world.sload(account, slot);
    const current = typeof cur === 'bigint' ? cur : await cur;
    let gas: number;
    if (rules.istanbul) {
      // EIP-2200 (with EIP-2929's costs from Berlin, EIP-3529's refunds from London).
      if (f.gas <= rules.sstoreSentryEIP2200Gas) throw OOG;
      const orig = world.original(account, slot);
      const original = typeof orig === 'bigint' ? orig : await orig;
      let cold = 0;
      if (rules.berlin && world.warmSlot(account, slot)) cold = rules.coldsloadGas;
      if (current === value) gas = rules.sstoreNoopEIP2200Gas;
      else if (original === current) {
        if (original === 0n) gas = rules.sstoreInitEIP2200Gas;
        else {
          if (value === 0n) world.addRefund(rules.sstoreClearRefundEIP2200Gas);
          gas = rules.sstoreCleanEIP2200Gas;
        }
      } else {
        if (original !== 0n) {
          if (current === 0n) world.addRefund(-rules.sstoreClearRefundEIP2200Gas);
          else if (value === 0n) world.addRefund(rules.sstoreClearRefundEIP2200Gas);
        }
        if (original === value) {
          if (original === 0n)
            world.addRefund(
              rules.berlin ? rules.sstoreInitEIP2200Gas - rules.warmstoragereadGas : rules.sstoreInitRefundEIP2200Gas,
            );
          else
            world.addRefund(
              rules.berlin
                ? rules.sstoreResetGas - rules.coldsloadGas - rules.warmstoragereadGas
                : rules.sstoreCleanRefundEIP2200Gas,
            );
        }
        gas = rules.sstoreDirtyEIP2200Gas;
      }
      gas += cold;
    } else if (rules.eip1283) {
      // EIP-1283 (Constantinople alone).
      const orig = world.original(account, slot);
      const original = typeof orig === 'bigint' ? orig : await orig;
      if (current === value) gas = rules.netSstoreNoopGas;
      else if (original === current) {
        if (original === 0n) gas = rules.netSstoreInitGas;
        else {
          if (value === 0n) world.addRefund(rules.netSstoreClearRefundGas);
          gas = rules.netSstoreCleanGas;
        }
      } else {
        if (original !== 0n) {
          if (current === 0n) world.addRefund(-rules.netSstoreClearRefundGas);
          else if (value === 0n) world.addRefund(rules.netSstoreClearRefundGas);
        }
        if (original === value)
          world.addRefund(original === 0n ? rules.netSstoreResetClearRefundGas : rules.netSstoreResetRefundGas);
        gas = rules.netSstoreDirtyGas;
      }
    } else if (current === 0n && value !== 0n) gas = rules.sstoreSetGas;
    else {
      if (current !== 0n && value === 0n) world.addRefund(rules.sstoreRefundGas);
      gas = rules.sstoreResetGas;
    }
    this.useGas(f, base + gas);
    if (this.hooks !== undefined) await this.opcodeHook(f, this.hooks);
    f.sp -= 2;
    world.sstore(account, slot, value, current);
  }

  private async selfdestruct(f: Frame, base: number): Promise<void> {
    const { rules, world } = this;
    if (f.msg.isStatic) throw STATIC;
    if (f.sp < 1) throw STACK_UNDERFLOW;
    const target = addressOf(f.stack[f.sp - 1]);
    const key = keyOf(target);
    let gas = 0;
    if (rules.berlin && world.warmAddress(key) && !this.warmPrecompiles.has(key)) gas += rules.coldaccountaccessGas;
    const beneficiary = await world.account(key, target);
    const self = await world.account(f.msg.toKey, f.msg.to);
    if (rules.tangerineWhistle) {
      const dead = rules.spuriousDragon
        ? self.balance > 0n && (!beneficiary.exists || beneficiary.empty)
        : !beneficiary.exists;
      if (dead) gas += rules.callNewAccountGas;
    }
    this.useGas(f, base + gas);
    if (this.hooks !== undefined) await this.opcodeHook(f, this.hooks);
    f.sp--;
    if (!rules.london && !world.destructed.has(self.key)) world.addRefund(rules.selfdestructRefundGas);
    const balance = self.balance;
    world.setBalance(beneficiary, beneficiary.balance + balance);
    world.touch(beneficiary);
    // EIP-6780: the account stays unless this transaction created it; its balance moves either way.
    if (!rules.eip6780 || world.created.has(self.key)) {
      world.setBalance(self, 0n);
      world.markDestructed(self);
    } else if (beneficiary.key !== self.key) world.setBalance(self, 0n);
  }

  private async callOp(f: Frame, op: number, base: number): Promise<void> {
    const { rules, world } = this;
    const withValue = op === 0xf1 || op === 0xf2;
    const args = withValue ? 7 : 6;
    if (f.sp < args) throw STACK_UNDERFLOW;
    const s = f.stack;
    const gasArg = s[f.sp - 1];
    const target = addressOf(s[f.sp - 2]);
    const value = withValue ? s[f.sp - 3] : 0n;
    const i = withValue ? 4 : 3;
    const inOffset = s[f.sp - i];
    const inSize = s[f.sp - i - 1];
    const outOffset = s[f.sp - i - 2];
    const outSize = s[f.sp - i - 3];
    if (op === 0xf1 && f.msg.isStatic && value !== 0n) throw STATIC;
    const key = keyOf(target);
    // The accounts are warmed before any gas is charged, as ethereumjs warms them in the gas handler
    // (an access list report keeps them when the call then runs out of gas).
    let gas = this.accessCost(key);
    if (value !== 0n) gas += rules.callValueTransferGas;
    const callee = await world.account(key, target);
    if (op === 0xf1 && (value !== 0n || !rules.spuriousDragon)) {
      const dead = rules.spuriousDragon ? !callee.exists || callee.empty : !callee.exists;
      if (dead) gas += rules.callNewAccountGas;
    }
    if (rules.eip7702) {
      const calleeCode = (await world.code(callee)).code;
      if (isDelegation(calleeCode)) {
        const delegatedKey = keyOf(calleeCode.subarray(3));
        gas += this.accessCost(delegatedKey);
      }
    }
    this.useGas(f, base);
    this.expand(f, inOffset, inSize);
    this.expand(f, outOffset, outSize);
    this.useGas(f, gas);
    let callGas: number;
    const available = rules.tangerineWhistle ? f.gas - Math.floor(f.gas / 64) : f.gas;
    if (rules.tangerineWhistle) callGas = gasArg > BigInt(available) ? available : Number(gasArg);
    else {
      if (gasArg > BigInt(f.gas)) throw OOG;
      callGas = Number(gasArg);
    }
    if (this.hooks !== undefined) await this.opcodeHook(f, this.hooks);
    f.sp -= args;
    this.useGas(f, callGas);
    if (value !== 0n) callGas += rules.callStipendGas;
    f.returnData = EMPTY;
    const depth = f.msg.depth + 1;
    const self = f.msg.to;
    if (depth > 1024) {
      f.gas += callGas;
      f.stack[f.sp++] = 0n;
      return;
    }
    if (value !== 0n && op !== 0xf4) {
      const me = await world.account(f.msg.toKey, self);
      if (me.balance < value) {
        f.gas += callGas;
        f.stack[f.sp++] = 0n;
        return;
      }
    }
    const msg: Message =
      op === 0xf1 || op === 0xfa
        ? {
            caller: self,
            callerKey: f.msg.toKey,
            to: target,
            toKey: key,
            codeAddress: target,
            codeKey: key,
            value,
            apparentValue: value,
            data: inSize === 0n ? EMPTY : f.memory.read(Number(inOffset), Number(inSize)),
            gas: callGas,
            isStatic: f.msg.isStatic || op === 0xfa,
            depth,
            delegate: false,
          }
        : {
            // CALLCODE, DELEGATECALL: the callee's code on this account.
            caller: op === 0xf4 ? f.msg.caller : self,
            callerKey: op === 0xf4 ? f.msg.callerKey : f.msg.toKey,
            to: self,
            toKey: f.msg.toKey,
            codeAddress: target,
            codeKey: key,
            value: op === 0xf4 ? 0n : value,
            apparentValue: op === 0xf4 ? f.msg.apparentValue : value,
            data: inSize === 0n ? EMPTY : f.memory.read(Number(inOffset), Number(inSize)),
            gas: callGas,
            isStatic: f.msg.isStatic,
            depth,
            delegate: op === 0xf4,
          };
    const out = await this.call(msg);
    f.gas += out.gasLeft;
    f.returnData = out.returnData;
    if (outSize > 0n && out.returnData.length > 0)
      f.memory.write(Number(outOffset), out.returnData, 0, Math.min(Number(outSize), out.returnData.length));
    f.stack[f.sp++] = out.error === undefined ? 1n : 0n;
  }

  private async createOp(f: Frame, salted: boolean, base: number): Promise<void> {
    const { rules, world } = this;
    const args = salted ? 4 : 3;
    if (f.sp < args) throw STACK_UNDERFLOW;
    if (f.msg.isStatic) throw STATIC;
    const s = f.stack;
    const value = s[f.sp - 1];
    const offset = s[f.sp - 2];
    const size = s[f.sp - 3];
    const salt = salted ? s[f.sp - 4] : 0n;
    this.useGas(f, base);
    this.expand(f, offset, size);
    const words = Math.ceil(Number(size) / 32);
    if (rules.eip3860) this.useGas(f, words * rules.initCodeWordGas);
    if (salted) this.useGas(f, words * rules.keccak256WordGas);
    if (this.hooks !== undefined) await this.opcodeHook(f, this.hooks);
    f.sp -= args;
    // Once charged, as ethereumjs checks it (in the instruction, not its gas).
    if (rules.eip3860 && size > BigInt(rules.maxInitCodeSize)) throw INITCODE_SIZE;
    const initCode = size === 0n ? EMPTY : f.memory.read(Number(offset), Number(size));
    const creator = await world.account(f.msg.toKey, f.msg.to);
    const address = salted
      ? keccak256(concat(Uint8Array.of(0xff), f.msg.to, wordBytes(salt), keccak256(initCode))).subarray(12)
      : createAddressOf(f.msg.to, creator.nonce);
    let gas = f.gas;
    if (rules.tangerineWhistle) gas -= Math.floor(gas / 64);
    this.useGas(f, gas);
    f.returnData = EMPTY;
    const depth = f.msg.depth + 1;
    if (depth > 1024 || creator.balance < value || creator.nonce >= 0xffffffffffffffffn) {
      f.gas += gas;
      s[f.sp++] = 0n;
      return;
    }
    world.setNonce(creator, creator.nonce + 1n);
    const out = await this.create(
      {
        caller: f.msg.to,
        callerKey: f.msg.toKey,
        to: address,
        toKey: '',
        codeAddress: address,
        codeKey: '',
        value,
        apparentValue: value,
        data: initCode,
        gas,
        isStatic: false,
        depth,
        delegate: false,
      },
      address,
    );
    f.gas += out.gasLeft;
    if (out.error === 'revert') f.returnData = out.returnData;
    s[f.sp++] = out.error === undefined ? wordOf(address) : 0n;
  }
}

/** A message as hooks see it start (a creation has no recipient or code address yet). */
function messageStart(msg: Message, create: boolean): MessageStart {
  return {
    depth: msg.depth,
    caller: msg.caller,
    to: create ? undefined : msg.to,
    codeAddress: create ? undefined : msg.codeAddress,
    value: msg.delegate ? msg.apparentValue : msg.value,
    data: msg.data,
    gas: msg.gas,
    delegate: msg.delegate,
    isStatic: msg.isStatic,
  };
}

function messageEnd(msg: Message, out: Outcome) {
  return { error: out.error, returnData: out.returnData, gasUsed: msg.gas - out.gasLeft, created: out.created };
}

/** ethereumjs's message: where the jump is (its code's hash, the account it runs for, its offset). */
function invalidJump(f: Frame): Halt {
  return new Halt(`invalid JUMP at ${bytesToHex(keccak256(f.code.code))}/${bytesToHex(f.msg.to)}:${f.pc - 1}`);
}

function signed(v: bigint): bigint {
  return v & SIGN ? v - (1n << 256n) : v;
}

function modPow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  base &= U256;
  while (exp > 0n) {
    if (exp & 1n) result = (result * base) & U256;
    base = (base * base) & U256;
    exp >>= 1n;
  }
  return result;
}
