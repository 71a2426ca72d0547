/**
 * Traces, as geth's debug API gives them: mined transactions and blocks run again on their parent's
 * state (the block's earlier transactions first), calls on the state after any block, each traced by
 * the tracer the options name (exec/tracers).
 */
import { createTxFromRLP } from '@ethereumjs/tx';

import type { CallRequest, Simulator, StateOverride } from '../exec/simulator';
import type { TraceOptions, TraceResult } from '../exec/tracers/tracer';
import type { ChainHead } from './head';

export class Traces {
  constructor(
    private readonly head: ChainHead,
    private readonly simulator: Simulator,
  ) {}

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
    return this.simulator.traceBlock(replay.root, replay.block, replay.senders, options);
  }

  /** debug_traceTransaction: a mined transaction traced on its block's state before it; undefined if not mined. */
  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<TraceResult | undefined> {
    const loc = await this.head.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const replay = await this.head.replayInputs(loc.blockNumber);
    if (replay === undefined) return undefined;
    const [traced] = await this.simulator.traceBlock(replay.root, replay.block, replay.senders, options, loc.index);
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
    return this.simulator.traceCall(req, block, root, this.head.callGasCap(), overrides, options);
  }
}
