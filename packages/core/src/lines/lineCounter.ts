/**
 * Counts prover lines per module as Linea's tracer does (rules and sources in lineProfiles.ts).
 *
 * The model is the tracer's own:
 *  - counts accumulate over a conflation, which in the sequencer is the block being built (a new
 *    tracer per block) and in a simulation is that one run (a new tracer per transaction);
 *  - a conflation starts with its constant rows (reference tables, placeholders) and each block adds
 *    its own, so the first transaction of a block carries them;
 *  - operations of the deduplicating modules count once per conflation; a transaction that is not
 *    selected has its operations dropped (popTx), a selected one keeps them (commitTx);
 *  - every reported count is lines + the module's spillage;
 *  - an opcode that raises an exception never reaches the arithmetic modules: here the opcode
 *    handlers are wrapped, and the EVM calls a handler only once the stack and gas checks passed.
 *
 * The hooks are the cheapest this EVM offers: each opcode handler in its opcode table is wrapped
 * (operands are read from the stack before the handler pops them), precompiles at `runPrecompile`,
 * frames at `runInterpreter`.
 */
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToUnprefixedHex, createAddressFromBigInt, equalsBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak';

import {
  PROFILES,
  addRows,
  binRows,
  extRows,
  logDataRows,
  logInfoRows,
  modRows,
  mulRows,
  rlpReceiptRows,
  rlpTxnRows,
  romRows,
  shakiraRows,
  shfRows,
  wcpRows,
} from './lineProfiles';
import type { LogShape, TracerProfile, TracerProfileName } from './lineProfiles';
import { Conflation } from './conflation';
import type { ConflationMark, LineCounts } from './conflation';
import { countPrecompileCall, OOB } from './precompileRows';

/** Topic of MessageSent, the event an L2→L1 message emits. */
const MESSAGE_SENT_TOPIC = keccak256(
  new TextEncoder().encode('MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32)'),
);

type Stack = { peek(n: number): bigint[] };
type RunState = { stack: Stack; stateManager: { getCode(a: Address): Promise<Uint8Array> } };
type OpHandler = (runState: RunState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { code: number; isAsync: boolean }; opHandler: OpHandler };
type ExecResult = { exceptionError?: { error?: string }; returnValue?: Uint8Array };
type PrecompileFn = (...args: unknown[]) => unknown;
type Message = {
  code?: unknown;
  codeAddress?: { bytes: Uint8Array };
  to?: { bytes: Uint8Array };
  isCreate?: boolean;
};
type InterpreterResult = { exceptionError?: { error?: string }; returnValue?: Uint8Array };
// The EVM keeps these on its instance; they are the only hooks cheaper than the `step` event.
type EvmInternals = {
  _opcodeMap: (OpEntry | undefined)[];
  precompiles: Map<string, PrecompileFn>;
  runPrecompile(code: PrecompileFn, data: Uint8Array, gasLimit: bigint): ExecResult | Promise<ExecResult>;
  runInterpreter(message: Message, opts?: unknown): Promise<InterpreterResult>;
};

/** Stack operands beyond this are capped: the instruction would have run out of gas first. */
const SIZE_CAP = 1n << 40n;
const num = (n: bigint) => Number(n > SIZE_CAP ? SIZE_CAP : n);
const hex = (n: bigint) => n.toString(16);

export class LineCounter {
  readonly profile: TracerProfile;
  private c: Conflation;
  /** Executions per opcode in the current transaction (HUB rows are folded from it). */
  private readonly ops = new Uint32Array(256);
  /** Per running frame: did an explicit halting instruction end it. */
  private readonly halted: boolean[] = [];
  private frames = 0;
  private exceptionalFrames = 0;
  private active = true;

  /** With `enabled` false nothing is hooked and every count is empty (a baseline for benchmarks). */
  constructor(
    evm: VM['evm'],
    readonly enabled = true,
    profile: TracerProfileName = 'osaka',
  ) {
    this.profile = PROFILES[profile];
    this.c = new Conflation(this.profile);
    if (!enabled) return;
    const internals = evm as unknown as EvmInternals;
    this.hookOpcodes(internals);
    this.hookFrames(internals);
    // A fork change rebuilds the EVM's opcode table (its own listener runs first): hook the new one.
    evm.common.events.on('hardforkChanged', () => {
      this.hookOpcodes(internals);
      this.mapPrecompiles(internals);
    });
  }

  /**
   * The conflation's counts now, mid-transaction: with the HUB rows of the instructions run so far
   * (folded into the conflation only when the transaction ends). For per-frame line counts.
   */
  liveCounts(): LineCounts {
    const counts = this.c.counts();
    if (counts.HUB !== undefined) counts.HUB += this.instructionHubRows();
    return counts;
  }

  /** HUB rows of the instructions run so far in this transaction, exceptional context exits included. */
  private instructionHubRows(): number {
    let hub = this.exceptionalFrames;
    for (let op = 0; op < 256; op++) if (this.ops[op] !== 0) hub += this.ops[op] * this.profile.hubRows[op];
    return hub;
  }

  /** Starts a conflation of one block (the sequencer's new tracer for the block it builds). */
  startBlock(): Conflation {
    this.c = new Conflation(this.profile);
    return this.c;
  }

  /** Starts counting a transaction in the current conflation. */
  beginTx(): void {
    this.ops.fill(0);
    this.halted.length = 0;
    this.frames = this.exceptionalFrames = 0;
    this.c.popTx();
  }

  /** Ends the transaction: adds its transaction-level rows; returns the conflation's counts. */
  endTx(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): LineCounts {
    if (!this.enabled) return {};
    this.foldTransaction(tx, result);
    return this.c.counts();
  }

  /** A simulation: a conflation of its own, holding one transaction (begin ... end). */
  begin(): void {
    this.startBlock();
    this.beginTx();
  }

  end(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): LineCounts {
    return this.endTx(tx, result);
  }

  commitTx(): void {
    this.c.commitTx();
  }

  popTx(): void {
    this.c.popTx();
  }

  /** The conflation now, and back to it: a bundle of transactions selected whole or not at all. */
  mark(): ConflationMark {
    return this.c.mark();
  }

  rollback(mark: ConflationMark): void {
    this.c.rollback(mark);
  }

  private foldTransaction(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): void {
    const c = this.c;
    const p = this.profile;
    const london = !p.singleRowArithmetic;
    let hub = this.instructionHubRows();
    const failed = result !== undefined && result.execResult.exceptionError !== undefined;
    if (this.frames === 0) hub += london ? 4 : 6;
    else {
      const warm = tx !== undefined && 'accessList' in tx ? accessListRows(tx) : 0;
      hub += warm + (london ? 6 + (failed ? 2 : 0) + 3 : 10 + 4);
    }
    // EIP-7702 (ZkCounter.traceStartTransaction): each delegation 2 HUB rows, an ECRECOVER on its
    // signature (EC_DATA 10, an effective call), 7 SHAKIRA rows and a keccak; then 1 HUB row.
    const delegations = tx !== undefined && 'authorizationList' in tx ? (tx.authorizationList as unknown[]).length : 0;
    if (delegations > 0) {
      hub += 2 * delegations + 1;
      c.add('EC_DATA', 10 * delegations);
      c.add('PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS', delegations);
      c.add('SHAKIRA_DATA', 7 * delegations);
      c.add('BLOCK_KECCAK', 2 * delegations);
    }
    c.add('HUB', hub);

    const logs: LogShape[] = [];
    for (const [, topics, data] of (result?.execResult.logs ?? []) as [Uint8Array, Uint8Array[], Uint8Array][]) {
      logs.push({ topics: topics.length, dataSize: data.length });
      if (topics.length > 0 && equalsBytes(topics[0], MESSAGE_SENT_TOPIC)) c.add('BLOCK_L2_L1_LOGS', 1);
    }
    c.add('RLP_TXN_RCPT', rlpReceiptRows(logs));
    c.add('LOG_DATA', logDataRows(logs));
    c.add('LOG_INFO', logInfoRows(logs));
    c.add('BLOCK_TRANSACTIONS', 1);
    if (tx === undefined) return;
    c.add('TXN_DATA', london ? (tx.type === 0 ? 8 : 9) : tx.type >= 2 ? 17 : 15);
    c.add('RLP_TXN', rlpTxnRows(txShape(tx)));
    const encoded = tx.serialize();
    c.add('BLOCK_L1_SIZE', encoded.length + 20);
    const preimage = tx.getMessageToSign();
    const preimageLength = (Array.isArray(preimage) ? RLP.encode(preimage) : preimage).length;
    c.add('BLOCK_KECCAK', Math.ceil(encoded.length / 136) + Math.ceil(preimageLength / 136) + 1);
    if (tx.to === undefined) {
      c.add('RLP_ADDR', 8);
      c.add('BLOCK_KECCAK', 1);
    }
  }

  // -------------------------------------------------------------------------------- opcode hooks

  private hookOpcodes(evm: EvmInternals): void {
    const map = evm._opcodeMap;
    for (let code = 0; code < map.length; code++) {
      const entry = map[code];
      if (entry === undefined) continue;
      const inner = entry.opHandler;
      const measure = this.operandHook(code);
      let opHandler: OpHandler;
      if (code === 0x3c) {
        const hooked = this.extCodeCopyHook(inner);
        opHandler = (rs, c) => (this.active ? hooked(rs, c) : inner(rs, c));
      } else if (measure === undefined)
        opHandler = (rs, c) => {
          if (this.active) this.ops[code]++;
          return inner(rs, c);
        };
      else
        opHandler = (rs, c) => {
          if (this.active) {
            measure(rs.stack);
            this.ops[code]++;
          }
          return inner(rs, c);
        };
      map[code] = { ...entry, opHandler };
    }
  }

  /**
   * Counts from now on, or not at all: a run whose result needs no counts passes through the hooks.
   * (The hooks stay in the EVM's opcode table: other wrappers, such as the execution guard's, may sit
   * around them.)
   */
  setActive(on: boolean): void {
    this.active = on;
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Rows for an arithmetic operation: London's formula, or one row (Osaka), once per conflation. */
  private arith(module: string, key: string, londonRows: () => number): void {
    this.c.addOnce(key, module, this.profile.singleRowArithmetic ? 1 : londonRows());
  }

  /** Reads what an opcode's modules need from the stack, before the handler pops it. */
  private operandHook(code: number): ((stack: Stack) => void) | undefined {
    const c = () => this.c;
    const london = !this.profile.singleRowArithmetic;
    const two = (f: (a: bigint, b: bigint) => void) => (stack: Stack) => {
      const [a, b] = stack.peek(2);
      f(a, b);
    };
    const key = (a: bigint, b: bigint) => `${code}:${hex(a)}:${hex(b)}`;
    switch (code) {
      case 0x01: // ADD
      case 0x03: // SUB
        return two((a, b) => this.arith('ADD', key(a, b), () => addRows(code === 0x03, a, b)));
      case 0x02: // MUL
        return two((a, b) => this.arith('MUL', key(a, b), () => mulRows(false, a, b)));
      case 0x0a: // EXP
        return two((a, b) => {
          this.arith('MUL', key(a, b), () => mulRows(true, a, b));
          c().add('EXP', london ? 18 : 1);
        });
      case 0x04: // DIV
      case 0x05: // SDIV
      case 0x06: // MOD
      case 0x07: // SMOD
        return two((a, b) => this.arith('MOD', key(a, b), () => modRows(b)));
      case 0x08: // ADDMOD
      case 0x09: // MULMOD
        return (stack) => {
          const [a, b, n] = stack.peek(3);
          this.arith('EXT', `${key(a, b)}:${hex(n)}`, () => extRows(code === 0x09, a, b, n));
        };
      case 0x10: // LT
      case 0x11: // GT
      case 0x12: // SLT
      case 0x13: // SGT
      case 0x14: // EQ
        return two((a, b) => this.arith('WCP', key(a, b), () => wcpRows(code, a, b)));
      case 0x15: // ISZERO
        return (stack) => {
          const [a] = stack.peek(1);
          this.arith('WCP', key(a, 0n), () => 1);
        };
      case 0x16: // AND
      case 0x17: // OR
      case 0x18: // XOR
      case 0x0b: // SIGNEXTEND
      case 0x1a: // BYTE
        if (!london) return undefined;
        return two((a, b) => c().addOnce(key(a, b), 'BIN', binRows(code, a, b)));
      case 0x19: // NOT
        if (!london) return undefined;
        return (stack) => {
          const [a] = stack.peek(1);
          c().addOnce(key(a, 0n), 'BIN', 16);
        };
      case 0x1b: // SHL
      case 0x1c: // SHR
      case 0x1d: // SAR
        return two((shift, value) => this.arith('SHF', key(shift, value), () => shfRows(code, shift)));
      case 0x20: // KECCAK256
        return two((offset, size) => {
          const n = num(size);
          this.mxp(n === 0 ? 'trivial' : 'word');
          this.move(n, offset, 0n);
          if (n > 0) {
            c().add('SHAKIRA_DATA', shakiraRows(n));
            c().add('BLOCK_KECCAK', Math.ceil(n / 136));
          }
        });
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3f: // EXTCODEHASH
        return (stack) => this.trm(stack.peek(1)[0]);
      case 0xff: // SELFDESTRUCT
        return (stack) => {
          this.trm(stack.peek(1)[0]);
          this.halt();
        };
      case 0x35: // CALLDATALOAD
        return () => c().add('OOB', OOB.CDL);
      case 0x37: // CALLDATACOPY
      case 0x39: // CODECOPY
      case 0x5e: // MCOPY
        return (stack) => this.copy(stack.peek(3));
      case 0x3e: // RETURNDATACOPY
        return (stack) => {
          c().add('OOB', OOB.RDC);
          this.copy(stack.peek(3));
        };
      case 0x40: // BLOCKHASH
        return (stack) => {
          const k = `${code}:${hex(stack.peek(1)[0])}`;
          c().addOnce(k, 'BLOCK_HASH', 6);
          c().addOnce(`${k}:wcp`, 'WCP', 65);
        };
      case 0x51: // MLOAD
      case 0x52: // MSTORE
        return (stack) => {
          const offset = stack.peek(1)[0];
          this.mxp('word');
          c().add('MMU', 4);
          c().add('MMIO', offset % 16n === 0n ? 2 : 32);
        };
      case 0x53: // MSTORE8
        return () => {
          this.mxp('byte');
          c().add('MMU', 3);
          c().add('MMIO', 16);
        };
      case 0x59: // MSIZE
        return () => this.mxp('msize');
      case 0x55: // SSTORE
        return () => c().add('OOB', OOB.SSTORE);
      case 0x56: // JUMP
        return () => c().add('OOB', OOB.JUMP);
      case 0x57: // JUMPI
        return () => c().add('OOB', OOB.JUMPI);
      case 0xf0: // CREATE
      case 0xf5: // CREATE2
        return (stack) => {
          const [, offset, size] = stack.peek(3);
          const n = num(size);
          this.mxp(n === 0 ? 'trivial' : 'word');
          this.move(n, offset, 0n);
          c().add('OOB', OOB.CREATE);
          c().add('STP', london ? 3 : 1);
          c().add('GAS', london ? 3 : 1);
          c().add('RLP_ADDR', code === 0xf0 ? 8 : 6);
          c().add('BLOCK_KECCAK', 1);
          if (code === 0xf5 && n > 0) {
            c().add('SHAKIRA_DATA', shakiraRows(n));
            c().add('BLOCK_KECCAK', Math.ceil(n / 136));
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
          this.trm(s[1]);
          this.mxp(argsSize === 0n && retSize === 0n ? 'trivial' : 'word');
          this.move(num(argsSize), argsOffset, 0n);
          this.move(num(retSize), 0n, retOffset);
          c().add('OOB', OOB.CALL);
          c().add('STP', london ? 5 : 1);
          c().add('GAS', london ? 3 : 1);
        };
      case 0xf3: // RETURN
      case 0xfd: // REVERT
        return two((offset, size) => {
          this.halt();
          const n = num(size);
          this.mxp(n === 0 ? 'trivial' : 'word');
          this.move(n, offset, 0n);
        });
      case 0x00: // STOP
        return () => this.halt();
      default:
        if (code >= 0xa0 && code <= 0xa4)
          return two((offset, size) => {
            const n = num(size);
            this.mxp(n === 0 ? 'trivial' : 'word');
            this.move(n, offset, 0n);
          });
        return undefined;
    }
  }

  /** SELFDESTRUCT and explicit STOP/RETURN/REVERT end their frame (the frame hook counts it). */
  private halt(): void {
    if (this.halted.length > 0) this.halted[this.halted.length - 1] = true;
  }

  /** TRM: 4 rows (Osaka: 1) per distinct raw address word. */
  private trm(word: bigint): void {
    this.c.addOnce(`trm:${hex(word)}`, 'TRM', this.profile.singleRowArithmetic ? 1 : 4);
  }

  /** MXP rows by instruction type (MxpOperation.java). */
  private mxp(kind: 'msize' | 'trivial' | 'word' | 'byte'): void {
    const london = !this.profile.singleRowArithmetic;
    const rows = london
      ? kind === 'msize' || kind === 'trivial'
        ? 1
        : 4
      : { msize: 4, trivial: 5, word: 14, byte: 13 }[kind];
    this.c.add('MXP', rows);
  }

  /** *COPY with (destination, source, size) on the stack. */
  private copy([dst, src, size]: bigint[]): void {
    const n = num(size);
    this.mxp(n === 0 ? 'trivial' : 'word');
    this.move(n, src, dst);
  }

  /** MMU and MMIO rows of a memory move of `size` bytes (approximate; see the profile notes). */
  private move(size: number, src: bigint, dst: bigint): void {
    if (size === 0) return;
    const first = Number(dst % 16n);
    const limbs = Math.ceil((first + size) / 16);
    this.c.add('MMU', 1 + 5 + limbs);
    if (src % 16n !== dst % 16n) {
      this.c.add('MMIO', 16 * limbs);
      return;
    }
    let partial = (first !== 0 ? 1 : 0) + ((first + size) % 16 !== 0 ? 1 : 0);
    partial = Math.min(partial, limbs);
    this.c.add('MMIO', limbs - partial + 16 * partial);
  }

  /** EXTCODECOPY also adds the target's code to ROM when it copies something (async: reads the code). */
  private extCodeCopyHook(inner: OpHandler): OpHandler {
    return async (rs, c) => {
      const [address, dst, src, size] = rs.stack.peek(4);
      this.ops[0x3c]++;
      this.trm(address);
      this.copy([dst, src, size]);
      if (size !== 0n) {
        const target = createAddressFromBigInt(address & ((1n << 160n) - 1n));
        const code = await rs.stateManager.getCode(target);
        if (code.length > 0) this.fragment(`${bytesToUnprefixedHex(target.bytes)}:code`, code.length);
      }
      return inner(rs, c);
    };
  }

  /** ROM and ROM_LEX: a code fragment, counted once per conflation. */
  private fragment(key: string, size: number): void {
    if (size === 0) return;
    this.c.addOnce(`rom:${key}`, 'ROM', romRows(size));
    this.c.addOnce(`romlex:${key}`, 'ROM_LEX', 1);
  }

  // --------------------------------------------------------------------------------- frame hooks

  private precompileAddress = new Map<PrecompileFn, number>();

  private mapPrecompiles(evm: EvmInternals): void {
    this.precompileAddress = new Map();
    for (const [h, fn] of evm.precompiles) this.precompileAddress.set(fn, parseInt(h, 16));
  }

  private hookFrames(evm: EvmInternals): void {
    this.mapPrecompiles(evm);
    const runPrecompile = evm.runPrecompile.bind(evm);
    evm.runPrecompile = (code, data, gasLimit) => {
      const result = runPrecompile(code, data, gasLimit);
      if (!this.active) return result;
      const address = this.precompileAddress.get(code) ?? 0;
      const tally = (r: ExecResult) => {
        countPrecompileCall(this.c, !this.profile.singleRowArithmetic, address, data, r);
        return r;
      };
      return result instanceof Promise ? result.then(tally) : tally(result);
    };
    const runInterpreter = evm.runInterpreter.bind(evm);
    evm.runInterpreter = async (message, opts) => {
      const code = message.code instanceof Uint8Array ? message.code : undefined;
      if (!this.active || code === undefined || code.length === 0) return runInterpreter(message, opts);
      const address = bytesToUnprefixedHex(
        (message.isCreate ? message.to : message.codeAddress)?.bytes ?? new Uint8Array(),
      );
      this.frames++;
      if (message.isCreate) {
        this.fragment(`${address}:init`, code.length);
        if (message.to !== undefined) this.trm(BigInt(`0x${address}`));
      } else this.fragment(`${address}:code`, code.length);
      this.halted.push(false);
      let result: InterpreterResult;
      let explicitHalt = false;
      try {
        result = await runInterpreter(message, opts);
      } finally {
        explicitHalt = this.halted.pop() ?? false;
      }
      this.frameEnded(message, address, result, explicitHalt);
      return result;
    };
  }

  private frameEnded(message: Message, address: string, result: InterpreterResult, explicitHalt: boolean): void {
    const c = this.c;
    const london = !this.profile.singleRowArithmetic;
    const error = result.exceptionError?.error;
    const exceptional = error !== undefined && error !== 'revert';
    // Osaka: every context exit is a HUB row (ZkCounter.traceContextExit); London: exceptional ones.
    if (!london) c.add('HUB', 1);
    if (exceptional) {
      if (london) this.exceptionalFrames++;
      c.add('GAS', london ? (error === 'out of gas' ? 3 : 2) : 1);
      return;
    }
    // A frame that ran off the end of its code executes the virtual STOP.
    if (!explicitHalt) this.ops[0x00]++;
    c.add('GAS', london ? 3 : 1);
    const deployed = result.returnValue;
    if (message.isCreate && error === undefined && deployed !== undefined && deployed.length > 0) {
      c.add('OOB', OOB.DEPLOYMENT);
      this.fragment(`${address}:code`, deployed.length);
      c.add('SHAKIRA_DATA', shakiraRows(deployed.length));
      c.add('BLOCK_KECCAK', Math.ceil(deployed.length / 136));
    }
  }
}

function accessListRows(tx: TypedTransaction): number {
  const list = (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList;
  return list.reduce((s, [, keys]) => s + 1 + keys.length, 0);
}

function txShape(tx: TypedTransaction) {
  const t = tx as unknown as {
    gasPrice?: bigint;
    maxPriorityFeePerGas?: bigint;
    maxFeePerGas?: bigint;
    accessList?: [Uint8Array, Uint8Array[]][];
    chainId?: bigint;
  };
  return {
    type: tx.type,
    chainId: t.chainId ?? tx.common.chainId(),
    nonce: tx.nonce,
    gasPrice: t.gasPrice ?? 0n,
    maxPriorityFee: t.maxPriorityFeePerGas ?? 0n,
    maxFee: t.maxFeePerGas ?? 0n,
    isCreate: tx.to === undefined,
    value: tx.value,
    dataSize: tx.data.length,
    accessList: (t.accessList ?? []).map(([, keys]) => keys.length),
    v: tx.v ?? 0n,
    r: tx.r ?? 0n,
    s: tx.s ?? 0n,
  };
}
