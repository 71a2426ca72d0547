/** geth's muxTracer (several tracers over one run, each result under its name) and noopTracer. */
import type {
  MessageEvent,
  MessageResult,
  OpcodeState,
  StateReader,
  StepEvent,
  TraceResult,
  Tracer,
  TxSummary,
} from './tracer';

export class MuxTracer implements Tracer {
  readonly steps: boolean;
  readonly opcodes?: readonly number[];
  readonly capture?: (phase: 'post' | 'pre', state: StateReader) => Promise<void>;

  constructor(private readonly tracers: [string, Tracer][]) {
    this.steps = tracers.some(([, t]) => t.steps);
    const codes = new Set(tracers.flatMap(([, t]) => t.opcodes ?? []));
    if (codes.size > 0) this.opcodes = [...codes];
    if (tracers.some(([, t]) => t.capture !== undefined))
      this.capture = async (phase, state) => {
        for (const [, t] of this.tracers) await t.capture?.(phase, state);
      };
  }
  async onStep(step: StepEvent): Promise<void> {
    for (const [, t] of this.tracers) await t.onStep?.(step);
  }
  /** Each tracer's hook for `code`, in order; a promise only where one of them is async (SELFDESTRUCT's). */
  onOpcode(code: number, state: OpcodeState): void | Promise<void> {
    const pending: Promise<void>[] = [];
    for (const [, t] of this.tracers) {
      if (t.opcodes?.includes(code) !== true) continue;
      const r = t.onOpcode?.(code, state);
      if (r instanceof Promise) pending.push(r);
    }
    if (pending.length > 0) return Promise.all(pending).then(() => undefined);
  }
  onEnter(message: MessageEvent): void {
    for (const [, t] of this.tracers) t.onEnter?.(message);
  }
  onExit(result: MessageResult): void {
    for (const [, t] of this.tracers) t.onExit?.(result);
  }
  result(tx: TxSummary): TraceResult {
    return { tracer: 'muxTracer', results: this.tracers.map(([name, t]) => [name, t.result(tx)]) };
  }
}

export class NoopTracer implements Tracer {
  readonly steps = false;
  result(): TraceResult {
    return { tracer: 'noopTracer' };
  }
}
