/**
 * geth's callTracer: the tree of call frames a transaction opened, with gas, input, output, errors and
 * revert reasons; with `withLog`, the logs each frame emitted (none of a frame that failed).
 */
import { decodeRevertReason } from '../revertReason';
import { FrameTracker, gethError, logOfOpcode } from './tracer';
import type {
  CallFrame,
  CallLog,
  MessageEvent,
  MessageResult,
  OpcodeState,
  TraceResult,
  Tracer,
  TxSummary,
} from './tracer';

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

export class CallTracer extends FrameTracker implements Tracer {
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  /** The logs seen, in the order they were emitted, for their index. */
  private readonly emitted: CallLog[] = [];

  constructor(private readonly config: CallTracerConfig) {
    super();
    // SELFDESTRUCT for its frame; LOG0..LOG4 with `withLog`.
    this.opcodes = [...this.opcodes, 0xff, ...(config.withLog === true ? [0xa0, 0xa1, 0xa2, 0xa3, 0xa4] : [])];
  }

  override onOpcode(code: number, state: OpcodeState): void | Promise<void> {
    super.onOpcode(code, state);
    if (code === 0xff) return this.selfdestruct(state);
    const frame = this.stack[this.stack.length - 1];
    const log = this.config.withLog === true && frame !== undefined ? logOfOpcode(code, state) : undefined;
    if (frame === undefined || log === undefined) return;
    const entry: CallLog = { ...log, position: frame.calls?.length ?? 0, index: 0 };
    (frame.logs ??= []).push(entry);
    this.emitted.push(entry);
  }

  /** geth adds a SELFDESTRUCT frame: the contract's balance going to the beneficiary. */
  private async selfdestruct(state: OpcodeState): Promise<void> {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined || this.config.onlyTopCall === true) return;
    const address = state.interpreter.getAddress();
    const account = await state.stateManager.getAccount(address);
    const beneficiary = state.stack.peek(1)[0] & ((1n << 160n) - 1n);
    (parent.calls ??= []).push({
      type: 'SELFDESTRUCT',
      from: address.bytes,
      to: Uint8Array.from(Buffer.from(beneficiary.toString(16).padStart(40, '0'), 'hex')),
      value: account?.balance ?? 0n,
      gas: 0n,
      gasUsed: 0n,
      input: new Uint8Array(),
    });
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    // A DELEGATECALL's caller is the contract that makes it (the message carries the original sender).
    const from = type === 'DELEGATECALL' && message.to !== undefined ? message.to : message.caller;
    // The message's data and the frame's return value are views the EVM reuses: the frame keeps copies.
    const frame: CallFrame = {
      type,
      from: from.bytes,
      gas: message.gasLimit,
      gasUsed: 0n,
      input: message.data.slice(),
    };
    const target = type === 'DELEGATECALL' || type === 'CALLCODE' ? message.codeAddress : message.to;
    if (target !== undefined) frame.to = target.bytes;
    if (type !== 'STATICCALL') frame.value = message.value;
    if (this.stack.length === 0) this.root = frame;
    else if (this.config.onlyTopCall !== true) {
      const parent = this.stack[this.stack.length - 1];
      (parent.calls ??= []).push(frame);
    }
    this.stack.push(frame);
  }

  onExit(result: MessageResult): void {
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const r = result.execResult;
    frame.gasUsed = r.executionGasUsed;
    if (result.createdAddress !== undefined && frame.type.startsWith('CREATE')) frame.to = result.createdAddress.bytes;
    const error = r.exceptionError?.error;
    if (error === undefined || error === 'revert') frame.output = r.returnValue.slice();
    if (error !== undefined) {
      frame.error = gethError(error);
      if (error === 'revert') {
        const reason = decodeRevertReason(r.returnValue);
        if (reason !== undefined) frame.revertReason = reason;
      }
      // A failed frame's logs never happened.
      dropLogs(frame);
    }
    if (frame.type.startsWith('CREATE') && error !== undefined) delete frame.to;
  }

  /** The frame tree; geth's top frame carries the transaction's gas limit and the gas its receipt reports. */
  frame(tx: TxSummary): CallFrame {
    const root = this.root;
    // No frame ran (a transfer to an account without code runs none in this EVM).
    if (root === undefined)
      return {
        type: 'CALL',
        from: tx.from,
        to: tx.to,
        value: tx.value,
        gas: tx.gasLimit,
        gasUsed: tx.gasUsed,
        input: tx.input,
      };
    root.gas = tx.gasLimit;
    root.gasUsed = tx.gasUsed;
    const kept = new Set<CallLog>();
    const collect = (f: CallFrame) => {
      for (const log of f.logs ?? []) kept.add(log);
      f.calls?.forEach(collect);
    };
    collect(root);
    let index = 0;
    for (const log of this.emitted) if (kept.has(log)) log.index = index++;
    return root;
  }

  result(tx: TxSummary): TraceResult {
    return { tracer: 'callTracer', frame: this.frame(tx) };
  }
}

function dropLogs(frame: CallFrame): void {
  delete frame.logs;
  frame.calls?.forEach(dropLogs);
}
