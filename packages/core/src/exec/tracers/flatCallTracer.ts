/** geth's flatCallTracer: the callTracer's frames as Parity-style flat traces. */

import { CallTracer } from './callTracer';
import type {
  CallFrame,
  FlatTrace,
  MessageEvent,
  MessageResult,
  OpcodeState,
  TraceResult,
  Tracer,
  TxSummary,
} from './tracer';

export interface FlatCallTracerConfig {
  convertParityErrors?: boolean;
  includePrecompiles?: boolean;
}

/** geth's errors in Parity's words (convertParityErrors). */
const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'invalid opcode': 'Bad instruction',
  'stack underflow': 'Stack underflow',
};

export class FlatCallTracer implements Tracer {
  readonly steps = false;
  private readonly calls = new CallTracer({});
  readonly opcodes = this.calls.opcodes;

  constructor(
    private readonly config: FlatCallTracerConfig,
    private readonly isPrecompile: (address: Uint8Array) => boolean,
  ) {}

  onOpcode(code: number, state: OpcodeState): void | Promise<void> {
    return this.calls.onOpcode(code, state);
  }
  onEnter(message: MessageEvent): void {
    this.calls.onEnter(message);
  }
  onExit(result: MessageResult): void {
    this.calls.onExit(result);
  }

  result(tx: TxSummary): TraceResult {
    const traces: FlatTrace[] = [];
    const context = {
      blockHash: tx.blockHash,
      blockNumber: tx.blockNumber ?? 0n,
      transactionHash: tx.txHash,
      transactionPosition: tx.txIndex ?? 0,
    };
    const walk = (f: CallFrame, traceAddress: number[]) => {
      // geth leaves out plain calls to precompiles unless asked for them.
      const children = (f.calls ?? []).filter(
        (c) =>
          this.config.includePrecompiles === true ||
          !((c.type === 'CALL' || c.type === 'STATICCALL') && c.to !== undefined && this.isPrecompile(c.to)),
      );
      if (f.type === 'SELFDESTRUCT') {
        traces.push({ type: 'suicide', frame: f, subtraces: 0, traceAddress, ...context });
        return;
      }
      const error =
        f.error === undefined || this.config.convertParityErrors !== true
          ? f.error
          : (PARITY_ERRORS[f.error] ?? f.error);
      traces.push({
        type: f.type.startsWith('CREATE') ? 'create' : 'call',
        frame: f,
        error,
        subtraces: children.length,
        traceAddress,
        ...context,
      });
      children.forEach((c, i) => walk(c, [...traceAddress, i]));
    };
    walk(this.calls.frame(tx), []);
    return { tracer: 'flatCallTracer', traces };
  }
}
