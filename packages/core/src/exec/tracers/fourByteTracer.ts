/** geth's 4byteTracer: how often each function selector was called, with each calldata size. */
import { FrameTracker } from './tracer';
import type { MessageEvent, TraceResult, Tracer } from './tracer';

export class FourByteTracer extends FrameTracker implements Tracer {
  private readonly calls = new Map<string, { selector: Uint8Array; size: number; count: number }>();

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {
    super();
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    if (type.startsWith('CREATE') || message.data.length < 4) return;
    const target = message.codeAddress ?? message.to;
    // geth skips precompiles: "those are just fancy opcodes".
    if (target !== undefined && this.isPrecompile(target.bytes)) return;
    const selector = message.data.slice(0, 4);
    const size = message.data.length - 4;
    const key = `${Buffer.from(selector).toString('hex')}-${size}`;
    const entry = this.calls.get(key) ?? { selector, size, count: 0 };
    entry.count++;
    this.calls.set(key, entry);
  }

  result(): TraceResult {
    return { tracer: '4byteTracer', calls: [...this.calls.values()] };
  }
}
