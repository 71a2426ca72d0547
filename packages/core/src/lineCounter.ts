/**
 * Observes EVM execution and counts prover lines per module (rules in lineModules.ts).
 *
 * Counting is on for every transaction, so it is built from the cheapest hooks the EVM offers
 * (measured against the `step` event listener in scripts/bench/lineCounting.js):
 *  - each opcode's handler in this EVM's own opcode table is wrapped to bump a per-opcode tally;
 *    the few opcodes whose cost depends on sizes (KECCAK256, *COPY, LOG, EXP, RETURN, ...) also
 *    read their size operand from the stack;
 *  - precompiles are intercepted at the call boundary (`runPrecompile`);
 *  - call frames and executed code at the frame boundary (`runInterpreter`).
 * The tally is folded into module counts once, when the transaction ends.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { MODULE_RULES, OP } from './lineModules';
import type { Tally } from './lineModules';

export type LineCounts = Record<string, number>;

/** Topic of MessageSent, the event an L2→L1 message emits. */
const MESSAGE_SENT_TOPIC = keccak256(
  new TextEncoder().encode('MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32)'),
);

type Stack = { peek(n: number): bigint[] };
type RunState = { stack: Stack };
type OpHandler = (runState: RunState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { code: number }; opHandler: OpHandler };
type ExecResult = { exceptionError?: unknown };
type PrecompileFn = (...args: unknown[]) => unknown;
// The EVM keeps these on its instance; they are the only hooks cheaper than the `step` event.
type EvmInternals = {
  _opcodeMap: (OpEntry | undefined)[];
  precompiles: Map<string, PrecompileFn>;
  runPrecompile(code: PrecompileFn, data: Uint8Array, gasLimit: bigint): ExecResult | Promise<ExecResult>;
  runInterpreter(message: { code?: unknown; codeAddress?: { bytes: Uint8Array } }, opts?: unknown): Promise<unknown>;
};

function newTally(): Tally {
  return {
    ops: new Uint32Array(256),
    frames: 0,
    codeBytes: 0,
    codeAddresses: new Set(),
    keccakCalls: 0,
    keccakWords: 0,
    copyBytes: 0,
    logBytes: 0,
    expBytes: 0,
    precompileCalls: new Uint32Array(0x200),
    sha2Blocks: 0,
    ripemdBlocks: 0,
    modexpInputBytes: 0,
    pairings: 0,
    pairingCalls: 0,
    blakeRounds: 0,
    txBytes: 0,
    txTouches: 0,
    logs: 0,
    logTopics: 0,
    l2l1Logs: 0,
  };
}

const words = (n: bigint) => Number((n + 31n) / 32n);
/** Stack operands beyond this are capped: the call would run out of gas long before. */
const SIZE_CAP = 1n << 40n;
const size = (n: bigint) => Number(n > SIZE_CAP ? SIZE_CAP : n);

export class LineCounter {
  private t: Tally = newTally();

  /** With `enabled` false nothing is hooked and every count is 0 (a baseline for benchmarks). */
  constructor(
    evm: VM['evm'],
    readonly enabled = true,
  ) {
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

  private precompileAddress = new Map<PrecompileFn, number>();

  private mapPrecompiles(evm: EvmInternals): void {
    this.precompileAddress = new Map();
    for (const [hex, fn] of evm.precompiles) this.precompileAddress.set(fn, parseInt(hex, 16));
  }

  /** Starts counting a new transaction or call. */
  begin(): void {
    if (!this.enabled) return;
    const t = this.t;
    t.ops.fill(0);
    t.precompileCalls.fill(0);
    t.codeAddresses.clear();
    t.frames = t.codeBytes = t.keccakCalls = t.keccakWords = t.copyBytes = t.logBytes = t.expBytes = 0;
    t.sha2Blocks = t.ripemdBlocks = t.modexpInputBytes = t.pairings = t.pairingCalls = t.blakeRounds = 0;
    t.txBytes = t.txTouches = t.logs = t.logTopics = t.l2l1Logs = 0;
  }

  /** Ends the transaction (or call) and returns its count per module. */
  end(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): LineCounts {
    if (!this.enabled) return {};
    const t = this.t;
    if (tx !== undefined) {
      t.txBytes = tx.serialize().length;
      t.txTouches = 2;
    }
    const logs = (result?.execResult.logs ?? []) as [Uint8Array, Uint8Array[], Uint8Array][];
    for (const [, topics] of logs) {
      t.logs++;
      t.logTopics += topics.length;
      if (topics.length > 0 && equalsBytes(topics[0], MESSAGE_SENT_TOPIC)) t.l2l1Logs++;
    }
    const counts: LineCounts = {};
    for (const rule of MODULE_RULES) counts[rule.module] = rule.count(t);
    return counts;
  }

  private hookOpcodes(evm: EvmInternals): void {
    const map = evm._opcodeMap;
    for (let code = 0; code < map.length; code++) {
      const entry = map[code];
      if (entry === undefined) continue;
      const inner = entry.opHandler;
      const measure = this.sizeHook(code);
      const opHandler: OpHandler =
        measure === undefined
          ? (rs, c) => {
              this.t.ops[code]++;
              return inner(rs, c);
            }
          : (rs, c) => {
              this.t.ops[code]++;
              measure(rs.stack);
              return inner(rs, c);
            };
      map[code] = { ...entry, opHandler };
    }
  }

  /** For opcodes whose lines depend on a size operand: reads it before the handler pops it. */
  private sizeHook(code: number): ((stack: Stack) => void) | undefined {
    const copy = (position: number) => (stack: Stack) => {
      this.t.copyBytes += size(stack.peek(position)[position - 1]);
    };
    switch (code) {
      case OP.KECCAK256:
        return (stack) => {
          this.t.keccakCalls++;
          this.t.keccakWords += words(stack.peek(2)[1]);
        };
      case OP.CALLDATACOPY:
      case OP.CODECOPY:
      case OP.RETURNDATACOPY:
      case OP.MCOPY:
        return copy(3);
      case OP.EXTCODECOPY:
        return copy(4);
      case OP.RETURN:
      case OP.REVERT:
        return copy(2);
      case OP.MLOAD:
      case OP.MSTORE:
        return () => {
          this.t.copyBytes += 32;
        };
      case OP.EXP:
        return (stack) => {
          const exponent = stack.peek(2)[1];
          this.t.expBytes += exponent === 0n ? 0 : Math.ceil(exponent.toString(16).length / 2);
        };
      case OP.CREATE2:
        return (stack) => {
          this.t.keccakCalls++;
          this.t.keccakWords += words(stack.peek(3)[2]);
        };
      default:
        if (code >= OP.LOG0 && code <= OP.LOG4) {
          return (stack) => {
            const n = size(stack.peek(2)[1]);
            this.t.logBytes += n;
            this.t.copyBytes += n;
          };
        }
        return undefined;
    }
  }

  private hookFrames(evm: EvmInternals): void {
    this.mapPrecompiles(evm);
    const runPrecompile = evm.runPrecompile.bind(evm);
    evm.runPrecompile = (code, data, gasLimit) => {
      const result = runPrecompile(code, data, gasLimit);
      const address = this.precompileAddress.get(code) ?? 0;
      const tally = (r: ExecResult) => {
        if (r.exceptionError === undefined) this.precompileCalled(address, data);
        return r;
      };
      return result instanceof Promise ? result.then(tally) : tally(result);
    };
    const runInterpreter = evm.runInterpreter.bind(evm);
    evm.runInterpreter = (message, opts) => {
      this.t.frames++;
      if (message.code instanceof Uint8Array) this.t.codeBytes += message.code.length;
      if (message.codeAddress !== undefined) this.t.codeAddresses.add(bytesToUnprefixedHex(message.codeAddress.bytes));
      return runInterpreter(message, opts);
    };
  }

  private precompileCalled(address: number, data: Uint8Array): void {
    const t = this.t;
    if (address < t.precompileCalls.length) t.precompileCalls[address]++;
    const blocks = Math.floor((data.length + 8) / 64) + 1;
    if (address === 2) t.sha2Blocks += blocks;
    else if (address === 3) t.ripemdBlocks += blocks;
    else if (address === 5) t.modexpInputBytes += data.length;
    else if (address === 8) {
      const pairs = Math.floor(data.length / 192);
      t.pairings += pairs;
      if (pairs > 0) t.pairingCalls++;
    } else if (address === 9 && data.length >= 4) {
      t.blakeRounds += new DataView(data.buffer, data.byteOffset, 4).getUint32(0);
    }
  }
}
