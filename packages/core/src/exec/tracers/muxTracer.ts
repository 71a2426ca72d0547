/** geth's muxTracer (several tracers over one run, each result under its name) and noopTracer. */
import type { MessageEvent, MessageResult, StateReader, StepEvent, TraceResult, Tracer, TxSummary } from './tracer';

export class MuxTracer implements Tracer {
  readonly steps: boolean;
  readonly capture?: (phase: 'post' | 'pre', state: StateReader) => Promise<void>;

  constructor(private readonly tracers: [string, Tracer][]) {
    this.steps = tracers.some(([, t]) => t.steps);
    if (tracers.some(([, t]) => t.capture !== undefined))
      this.capture = async (phase, state) => {
        for (const [, t] of this.tracers) await t.capture?.(phase, state);
      };
  }
  async onStep(step: StepEvent): Promise<void> {
    for (const [, t] of this.tracers) await t.onStep?.(step);
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
