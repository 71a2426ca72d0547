/**
 * Calls: execution that changes nothing (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1), on the state after any block, run by the simulator on a scratch state: the call
 * workers' (exec/workers/) when they are ready, the main thread's otherwise. Gas is capped at 10× the
 * block gas limit (spec, Limits).
 */
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';

import { simulatedBlockFrom } from '../exec/simulate';
import type { SimBlockInput, SimOptions, SimulatedBlock, SimulatedBlockData } from '../exec/simulate';
import type { CallRequest, CallResult, Simulator, StateOverride } from '../exec/simulator';
import type { CallSession } from '../exec/workers/callPool';
import type { CallOps } from '../exec/workers/protocol';
import type { LineCounts } from '../lines/conflation';
import { profitablePriorityFee } from '../pool/profitability';
import type { ChainHead } from './head';
import type { LineGate } from './lineGate';

export class Calls {
  constructor(
    private readonly head: ChainHead,
    private readonly simulator: Simulator,
    private readonly lines: LineGate,
    private workers: CallSession | undefined,
  ) {}

  /** Runs every call on the main thread from now on, the workers left (their chains are the old one's). */
  leaveWorkers(): void {
    this.workers?.close();
    this.workers = undefined;
  }

  /**
   * Resolves once the call workers are ready, so that the calls after it that arrive while another
   * call runs run there (a warm-up); false with no workers (`workers: 0`, a forked chain).
   */
  async workersReady(): Promise<boolean> {
    if (this.workers === undefined) return false;
    await this.workers.ready();
    return true;
  }

  /**
   * @internal Whether a call that arrives while no other call runs takes the main thread (the
   * default: it saves the hop to a thread) or a worker; tests that must run each call in the workers
   * turn it off.
   */
  setMainWhenIdle(on: boolean): void {
    this.workers?.setMainWhenIdle(on);
  }

  /** How many calls this process's call workers have run. */
  get workerCalls(): number {
    return this.workers?.ran ?? 0;
  }

  /** How many call threads this process runs now (they stop when idle). */
  get workerThreads(): number {
    return this.workers?.threads ?? 0;
  }

  /** Leaves the call workers (the chain closes). */
  close(): void {
    this.workers?.close();
  }

  /** Runs a call on the state after block `n` without creating a transaction. */
  async call(
    req: CallRequest,
    n: bigint,
    opts: { countLines?: boolean; overrides?: StateOverride[] } = {},
  ): Promise<CallResult> {
    const { block, root } = await this.head.blockAndRoot(n);
    const [cap, countLines, overrides] = [this.head.callGasCap(), opts.countLines ?? false, opts.overrides ?? []];
    const here = () => this.simulator.call(req, block, root, cap, countLines, overrides);
    return this.workers?.run('call', block, root, [req, cap, countLines, overrides], here) ?? here();
  }

  /**
   * The gas the call needs (eth_estimateGas: lines are not looked at, as on Linea's nodes). With
   * `judgeLines` (linea_estimateGas), refuses a call whose line counts, as the transaction it would
   * be at the estimate, overflow a module: what its submission would be refused for.
   *
   * A call that names no fee runs at the price ChainHead.feelessPrice gives (the block's base fee on a
   * Linea chain, as Besu's estimate; 0 on an Ethereum chain, as geth's): a fee-paying claim to an
   * account without code (L2MessageService's distributeFees) needs more gas at the base fee than at 0.
   */
  async estimateGas(
    req: CallRequest,
    n: bigint,
    judgeLines = false,
    overrides: StateOverride[] = [],
  ): Promise<{ gas: bigint }> {
    const { block, root } = await this.head.blockAndRoot(n);
    const cap = this.head.callGasCap();
    const price = this.head.feelessPrice(req, block);
    if (!judgeLines) {
      const here = () => this.simulator.estimateGas(req, block, root, cap, { price, overrides });
      return this.workers?.run('estimateGas', block, root, [req, cap, { price, overrides }], here) ?? here();
    }
    // Judged by the limits in force when it is asked, in a worker as here. Then, as
    // LineaEstimateGas.validateLineCounts simulates the call once more at the estimate with the gas
    // bought at the given price or the next base fee, a sender who cannot pay is refused (a request
    // without a sender is not: Besu's stand-in, the zero address, holds a fortune on Linea).
    const limits = this.lines.limits;
    const judge = (counts: LineCounts) => limits?.callRefusal(counts);
    const chargeAt = req.from === undefined ? undefined : (req.gasPrice ?? (await this.head.nextBaseFee()));
    const here = () =>
      this.simulator.estimateGas(req, block, root, cap, { countLines: true, judge, price, chargeAt, overrides });
    const args: CallOps['estimateGas'] = [req, cap, { judged: true, limits: limits?.spec, price, chargeAt, overrides }];
    return this.workers?.run('estimateGas', block, root, args, here) ?? here();
  }

  /**
   * linea_estimateGas's priority fee for a call estimated at `gas` (SEQ/rpc/methods/LineaEstimateGas.java):
   * the profitable fee at the estimate margin, sizing the transaction the call would be (its sender
   * or the zero address, its nonce or the sender's, EIP-1559 fields if any are given, else the gas
   * price or the next base fee); undefined when Linea's rules are off.
   */
  async priorityFee(req: CallRequest & { nonce?: bigint }, gas: bigint): Promise<bigint | undefined> {
    const rules = this.head.rules;
    if (rules === undefined) return undefined;
    const common = this.head.vm.common;
    const sender = req.from ?? new Uint8Array(20);
    const nonce = req.nonce ?? (await this.head.account(sender)).nonce;
    // Built with no gas and given it after: ethereumjs refuses gas over EIP-7825's cap at construction.
    const fields = { nonce, gasLimit: 0n, to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array() };
    const accessList = req.accessList;
    const opts = { common, freeze: false };
    const tx =
      req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined
        ? createFeeMarket1559Tx(
            {
              ...fields,
              chainId: common.chainId(),
              maxFeePerGas: req.maxFeePerGas ?? 0n,
              maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
              accessList: accessList ?? [],
            },
            opts,
          )
        : accessList !== undefined
          ? createAccessList2930Tx(
              {
                ...fields,
                chainId: common.chainId(),
                gasPrice: req.gasPrice ?? (await this.head.nextBaseFee()),
                accessList,
              },
              opts,
            )
          : createLegacyTx({ ...fields, gasPrice: req.gasPrice ?? (await this.head.nextBaseFee()) }, opts);
    (tx as { gasLimit: bigint }).gasLimit = gas;
    return profitablePriorityFee(
      rules.pricing,
      rules.config.estimateGasMinMargin,
      gas,
      rules.compressedSize(tx, sender),
    );
  }

  async createAccessList(
    req: CallRequest,
    n: bigint,
  ): Promise<{ accessList: [Uint8Array, Uint8Array[]][]; gasUsed: bigint; error?: string }> {
    const { block, root } = await this.head.blockAndRoot(n);
    const cap = this.head.callGasCap();
    const here = () => this.simulator.createAccessList(req, block, root, cap);
    return this.workers?.run('createAccessList', block, root, [req, cap], here) ?? here();
  }

  /** eth_simulateV1: blocks of calls simulated on top of block `n`. */
  async simulate(n: bigint, input: SimBlockInput<StateOverride>[], opts: SimOptions): Promise<SimulatedBlock[]> {
    const { block, root } = await this.head.blockAndRoot(n);
    const options = { ...opts, gasCap: this.head.callGasCap() };
    const here = () => this.simulator.simulate(block, root, input, options);
    const fromWorker = (data: SimulatedBlockData[]) =>
      data.map((d) => simulatedBlockFrom(d, this.head.common, this.head.scheduled));
    return this.workers?.run('simulate', block, root, [input, options], here, fromWorker) ?? here();
  }
}
