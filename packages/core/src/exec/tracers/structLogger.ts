/**
 * geth's struct logger (the default tracer): one entry per executed instruction, with the stack, the
 * memory, the return data and the running contract's slots touched so far, as its options ask.
 */
import { bigIntToBytes, bytesToBigInt, setLengthLeft } from '@ethereumjs/util';

import { gethError } from './tracer';
import type { MessageEvent, MessageResult, StepEvent, StructLog, TraceResult, Tracer, TxSummary } from './tracer';

export interface StructLoggerConfig {
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  limit?: number;
}

/** The instructions that end a frame: STOP, RETURN, REVERT, INVALID, SELFDESTRUCT. */
const HALTING = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff]);

export class StructLogger implements Tracer {
  readonly steps = true;
  private readonly logs: StructLog[] = [];
  /** Per contract (unprefixed hex address): its slots touched so far. */
  private readonly storage = new Map<string, Map<bigint, bigint>>();
  private returnData: Uint8Array = new Uint8Array();
  private callLog: StructLog | undefined;
  private readonly depths: number[] = [];
  /** Per open frame: whether its last instruction ends it (STOP, RETURN, REVERT, INVALID, SELFDESTRUCT). */
  private readonly halting: boolean[] = [];

  constructor(private readonly config: StructLoggerConfig) {}

  async onStep(step: StepEvent): Promise<void> {
    this.halting[this.halting.length - 1] = HALTING.has(step.opcode.code);
    const limit = this.config.limit ?? 0;
    if (limit > 0 && this.logs.length >= limit) return;
    const log: StructLog = {
      pc: step.pc,
      op: step.opcode.name,
      gas: step.gasLeft,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      depth: step.depth + 1,
      refund: 0n,
    };
    // The step event's stack and memory are copies made for it.
    if (this.config.disableStack !== true) log.stack = step.stack;
    if (this.config.enableMemory === true) log.memory = step.memory;
    if (this.config.enableReturnData === true && this.returnData.length > 0) log.returnData = this.returnData;
    const code = step.opcode.code;
    if (this.config.disableStorage !== true && (code === 0x54 || code === 0x55) && step.stack.length >= 1) {
      const address = Buffer.from(step.address.bytes).toString('hex');
      const slots = this.storage.get(address) ?? new Map<bigint, bigint>();
      this.storage.set(address, slots);
      const key = step.stack[step.stack.length - 1];
      if (code === 0x54) {
        const value = await step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(key), 32));
        slots.set(key, bytesToBigInt(value));
      } else if (step.stack.length >= 2) slots.set(key, step.stack[step.stack.length - 2]);
      log.storage = [...slots];
    }
    log.refund = step.gasRefund;
    this.logs.push(log);
    this.callLog = [0xf1, 0xf2, 0xf4, 0xfa].includes(code) ? log : undefined;
  }

  /**
   * geth's cost of a CALL-family instruction includes the gas it passes on (less the stipend of a
   * value transfer); this EVM's step event does not, so it is added once the frame is entered.
   */
  onEnter(message: MessageEvent): void {
    this.depths.push(message.depth);
    this.halting.push(false);
    const log = this.callLog;
    this.callLog = undefined;
    if (log === undefined || message.depth === 0) return;
    const stipend = (log.op === 'CALL' || log.op === 'CALLCODE') && message.value > 0n ? 2300n : 0n;
    log.gasCost += message.gasLimit - stipend;
  }

  onExit(result: MessageResult): void {
    const depth = this.depths.pop();
    const halted = this.halting.pop();
    const error = result.execResult.exceptionError?.error;
    // A frame that ran off the end of its code executes the STOP after it: geth logs it, this EVM
    // has no step for it.
    const end = result.execResult.runState;
    const limit = this.config.limit ?? 0;
    if (
      depth !== undefined &&
      error === undefined &&
      halted === false &&
      end !== undefined &&
      end.programCounter >= end.code.length &&
      (limit === 0 || this.logs.length < limit)
    ) {
      const log: StructLog = {
        pc: end.programCounter,
        op: 'STOP',
        gas: end.gasLeft,
        gasCost: 0n,
        depth: depth + 1,
        refund: end.gasRefund,
      };
      if (this.config.disableStack !== true) log.stack = end.stack.getStack();
      if (this.config.enableMemory === true) log.memory = end.memory._store.slice(0, Number(end.memoryWordCount) * 32);
      if (this.config.enableReturnData === true && this.returnData.length > 0) log.returnData = this.returnData;
      this.logs.push(log);
    }
    // What the frame returned is the return data its caller's next instructions see.
    this.returnData = result.execResult.returnValue.slice();
    if (depth === undefined || error === undefined || error === 'revert') return;
    // geth marks the instruction that faulted: the last one of the frame.
    for (let i = this.logs.length - 1; i >= 0; i--) {
      if (this.logs[i].depth === depth + 1) {
        this.logs[i].error = gethError(error);
        break;
      }
      if (this.logs[i].depth < depth + 1) break;
    }
  }

  result(tx: TxSummary): TraceResult {
    return {
      tracer: 'structLogger',
      failed: tx.error !== undefined,
      gas: tx.gasUsed,
      returnValue: tx.returnValue,
      structLogs: this.logs,
    };
  }
}
