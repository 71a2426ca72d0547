/** Prover line counts per call frame: what each frame (with its sub-calls) added to each module. */
import type { LineCounts } from '../../lines/conflation';
import { FrameTracker } from './tracer';
import type { LineFrame, MessageEvent, MessageResult, TraceResult, Tracer, TxSummary } from './tracer';

export class LineCountTracer extends FrameTracker implements Tracer {
  private readonly stack: { frame: LineFrame; before: LineCounts }[] = [];
  private root: LineFrame | undefined;

  constructor(
    private readonly counts: () => LineCounts,
    private readonly profile: string,
  ) {
    super();
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    const target = type === 'DELEGATECALL' || type === 'CALLCODE' ? message.codeAddress : message.to;
    const from = type === 'DELEGATECALL' && message.to !== undefined ? message.to : message.caller;
    const frame: LineFrame = { type, from: from.bytes, lineCounts: {} };
    if (target !== undefined) frame.to = target.bytes;
    if (this.stack.length === 0) this.root = frame;
    else (this.stack[this.stack.length - 1].frame.calls ??= []).push(frame);
    this.stack.push({ frame, before: this.counts() });
  }

  onExit(result: MessageResult): void {
    const top = this.stack.pop();
    if (top === undefined) return;
    if (result.createdAddress !== undefined && top.frame.type.startsWith('CREATE'))
      top.frame.to = result.createdAddress.bytes;
    const now = this.counts();
    for (const [module, n] of Object.entries(now)) {
      const added = n - (top.before[module] ?? 0);
      if (added !== 0) top.frame.lineCounts[module] = added;
    }
  }

  result(tx: TxSummary): TraceResult {
    return {
      tracer: 'lineCountTracer',
      profile: this.profile,
      lineCounts: tx.lineCounts ?? {},
      frames: this.root ?? null,
    };
  }
}
