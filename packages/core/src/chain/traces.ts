/**
 * Traces, as geth's debug API gives them: mined transactions and blocks run again on their parent's
 * state (the block's earlier transactions first), calls on the state after any block, each traced by
 * the tracer the options name (exec/tracers).
 */
import type { Block } from '@ethereumjs/block';
import { createTxFromRLP } from '@ethereumjs/tx';

import type { CallRequest, Simulator, StateOverride } from '../exec/simulator';
import type { CallSession } from '../exec/workers/callPool';
import type { TraceOptions, TraceResult } from '../exec/tracers/tracer';
import type { ChainHead } from './head';

export class Traces {
  constructor(
    private readonly head: ChainHead,
    private readonly simulator: Simulator,
    /** The call workers, where they run (else the main thread's simulator). */
    private workers: CallSession | undefined,
  ) {}

  /** Traces on the main thread from now on (the session is Calls', which closes it). */
  leaveWorkers(): void {
    this.workers = undefined;
  }

  /**
   * debug_traceBlockByNumber: block `n`'s transactions run again on its parent's state, each traced;
   * undefined for an unknown block.
   */
  async traceBlock(
    n: bigint,
    options: TraceOptions,
  ): Promise<{ txHash: Uint8Array; result: TraceResult }[] | undefined> {
    const replay = await this.head.replayInputs(n);
    if (replay === undefined) return undefined;
    return this.runTraceBlock(replay, options);
  }

  /** debug_traceTransaction: a mined transaction traced on its block's state before it; undefined if not mined. */
  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<TraceResult | undefined> {
    const loc = await this.head.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const replay = await this.head.replayInputs(loc.blockNumber);
    if (replay === undefined) return undefined;
    const [traced] = await this.runTraceBlock(replay, options, loc.index);
    return traced.result;
  }

  /**
   * A signed transaction that was not mined (an excluded one, say) traced as a call from its sender
   * on the head state.
   */
  async traceRawTransaction(raw: Uint8Array, options: TraceOptions): Promise<TraceResult> {
    const tx = createTxFromRLP(raw, { common: this.head.common });
    const req: CallRequest = {
      from: tx.getSenderAddress().bytes,
      to: tx.to?.bytes,
      value: tx.value,
      data: tx.data,
      gas: tx.gasLimit,
    };
    return this.traceCall(req, this.head.number, [], options);
  }

  /** debug_traceCall: a call on the state after block `n`, with state overrides. */
  async traceCall(
    req: CallRequest,
    n: bigint,
    overrides: StateOverride[],
    options: TraceOptions,
  ): Promise<TraceResult> {
    const { block, root } = await this.head.blockAndRoot(n);
    const cap = this.head.callGasCap();
    const here = () => this.simulator.traceCall(req, block, root, cap, overrides, options);
    return this.workers?.run('traceCall', block, root, [req, cap, overrides, options], here) ?? here();
  }

  private runTraceBlock(
    { block, root, senders }: { block: Block; root: Uint8Array; senders: Uint8Array[] },
    options: TraceOptions,
    only?: number,
  ): Promise<{ txHash: Uint8Array; result: TraceResult }[]> {
    const here = () => this.simulator.traceBlock(root, block, senders, options, only);
    return this.workers?.run('traceBlock', block, root, [senders, options, only], here) ?? here();
  }
}
