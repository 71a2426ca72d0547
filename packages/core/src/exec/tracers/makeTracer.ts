/** A new tracer for one transaction, as named by geth's options (debug_trace*'s `tracer`). */
import { TracerError } from '../../errors';
import { CallTracer } from './callTracer';
import type { CallTracerConfig } from './callTracer';
import { FlatCallTracer } from './flatCallTracer';
import type { FlatCallTracerConfig } from './flatCallTracer';
import { FourByteTracer } from './fourByteTracer';
import { LineCountTracer } from './lineCountTracer';
import { MuxTracer, NoopTracer } from './muxTracer';
import { PrestateTracer } from './prestateTracer';
import type { PrestateTracerConfig } from './prestateTracer';
import { StructLogger } from './structLogger';
import type { TraceOptions, Tracer, TracerContext } from './tracer';

export function makeTracer(options: TraceOptions, ctx: TracerContext): Tracer {
  const config = options.tracerConfig ?? {};
  switch (options.tracer) {
    case undefined:
    case '':
      return new StructLogger(options);
    case 'callTracer':
      return new CallTracer(config as CallTracerConfig);
    case '4byteTracer':
      return new FourByteTracer(ctx.isPrecompile);
    case 'noopTracer':
      return new NoopTracer();
    case 'flatCallTracer':
      return new FlatCallTracer(config as FlatCallTracerConfig, ctx.isPrecompile);
    case 'prestateTracer':
      return new PrestateTracer(config as PrestateTracerConfig, ctx.start);
    case 'lineCountTracer':
      return new LineCountTracer(ctx.counts, ctx.profile);
    case 'muxTracer':
      return new MuxTracer(
        Object.entries(config).map(([name, sub]) => {
          if (name === 'muxTracer') throw new TracerError('muxTracer cannot contain muxTracer');
          return [name, makeTracer({ tracer: name, tracerConfig: (sub ?? {}) as Record<string, unknown> }, ctx)];
        }),
      );
    default:
      throw new TracerError(`tracer not found: ${options.tracer}`);
  }
}

/** Whether a trace needs line counts (the lineCountTracer, alone or in a muxTracer). */
export function countsLines(options: TraceOptions): boolean {
  return (
    options.tracer === 'lineCountTracer' ||
    (options.tracer === 'muxTracer' && 'lineCountTracer' in (options.tracerConfig ?? {}))
  );
}
