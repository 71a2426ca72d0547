/**
 * Calls: execution that changes nothing (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1), on the state after any block, run by the simulator on a scratch state. Gas is
 * capped at 10× the block gas limit (spec, Limits).
 */
import type { SimBlockInput, SimOptions, SimulatedBlock } from '../exec/simulate';
import type { CallRequest, CallResult, Simulator, StateOverride } from '../exec/simulator';
import type { LineCounts } from '../lines/conflation';
import type { ChainHead } from './head';
import type { LineGate } from './lineGate';

export class Calls {
  constructor(
    private readonly head: ChainHead,
    private readonly simulator: Simulator,
    private readonly lines: LineGate,
  ) {}

  /** Runs a call on the state after block `n` without creating a transaction. */
  async call(
    req: CallRequest,
    n: bigint,
    opts: { countLines?: boolean; overrides?: StateOverride[] } = {},
  ): Promise<CallResult> {
    const { block, root } = await this.head.blockAndRoot(n);
    return this.simulator.call(req, block, root, this.head.callGasCap(), opts.countLines ?? false, opts.overrides);
  }

  /** The gas the call needs; refuses a call whose line count overflows a module, as linea_estimateGas does. */
  async estimateGas(req: CallRequest, n: bigint): Promise<{ gas: bigint; lineCounts: LineCounts }> {
    const { block, root } = await this.head.blockAndRoot(n);
    return this.simulator.estimateGas(req, block, root, this.head.callGasCap(), (counts) =>
      this.lines.checkCall(counts),
    );
  }

  async createAccessList(
    req: CallRequest,
    n: bigint,
  ): Promise<{ accessList: [Uint8Array, Uint8Array[]][]; gasUsed: bigint; error?: string }> {
    const { block, root } = await this.head.blockAndRoot(n);
    return this.simulator.createAccessList(req, block, root, this.head.callGasCap());
  }

  /** eth_simulateV1: blocks of calls simulated on top of block `n`. */
  async simulate(n: bigint, input: SimBlockInput<StateOverride>[], opts: SimOptions): Promise<SimulatedBlock[]> {
    const { block, root } = await this.head.blockAndRoot(n);
    return this.simulator.simulate(block, root, input, { ...opts, gasCap: this.head.callGasCap() });
  }
}
