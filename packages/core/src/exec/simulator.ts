/**
 * The uses of the scratch VM (scratchVm.ts), each leaving no trace: eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1, traces of mined transactions and calls, line counts of calls,
 * transactions and mined blocks, and the `pending` block preview.
 */
import { createBlock } from '@ethereumjs/block';
import type { Block, HeaderData } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import type { EVMResult } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';

import { ExecutionHaltedError, ExecutionRevertedError, UpfrontCostError } from '../errors';
import type { LineCounts } from '../lines/conflation';
import { LineCounter } from '../lines/lineCounter';
import type { LineLimits } from '../lines/lineLimits';
import { gasSpent } from '../pool/intrinsicGas';
import type { PoolTx } from '../pool/txPool';
import { flatStateManager } from '../state/flatState';
import { OverlayDB, stateCaches } from '../state/stateDb';
import type { StateSource } from '../state/stateDb';
import type { Receipt } from '../types';
import { beginBlock, buildBlock } from './blockBuilder';
import type { BuildInput, BuildResult } from './blockBuilder';
import { ownEngine } from '../evm/engine';
import { EngineTransactions, readOnce, runTransaction, stateBackend } from './onEngine';
import { cappedGas, ScratchVm, sentBaseFee, throwIfFailed, ZERO_ADDRESS } from './scratchVm';
import type { Blockchain, CallRequest, CallResult, SimulatorOptions, StateOverride } from './scratchVm';
import { simulateBlocks } from './simulate';
import type { SimBlockInput, SimHost, SimOptions, SimulatedBlock } from './simulate';
import { stateReader } from './tracers/attach';
import { countsLines, makeTracer } from './tracers/makeTracer';
import { gethError } from './tracers/tracer';
import type { TraceOptions, TraceResult, Tracer } from './tracers/tracer';

export { RPC_EVM_TIMEOUT_MS } from './scratchVm';
export type { CallRequest, CallResult, SimulatorOptions, StateOverride } from './scratchVm';

/** geth's eth_estimateGas stops when the bracket is within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015;

export class Simulator extends ScratchVm {
  static async create(
    common: Common,
    stateDb: StateSource,
    blockchain: Blockchain,
    opts: SimulatorOptions = {},
  ): Promise<Simulator> {
    // Its own scratch layer: nothing it computes may reach the block the miner commits next.
    const overlay = new OverlayDB(stateDb);
    // Small unbounded caches: they hold only what one use writes, which every use reverts; reads are
    // kept by the flat state.
    const sm = flatStateManager(overlay, stateDb.flat, common, stateCaches(), { scratch: true });
    const simulatedHashes = new Map<bigint, Uint8Array>();
    const chain: Blockchain = {
      getBlock: async (n: number) => {
        const hash = simulatedHashes.get(BigInt(n));
        return hash === undefined ? blockchain.getBlock(n) : { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    };
    const vm = await createVM({ common, stateManager: sm, blockchain: chain, evmOpts: opts.evmOpts });
    // Before the line counter and the guard, which wrap the EVM's runCall around it.
    const engine = new EngineTransactions(vm, ownEngine(opts.engine));
    const counter = new LineCounter(vm.evm, {
      enabled: opts.lineCounting,
      tracer: opts.tracer,
      counter: opts.counter,
      bridge: opts.bridge,
    });
    return new Simulator(vm, counter, overlay, simulatedHashes, opts, engine);
  }

  /** eth_call: the return value, or ExecutionRevertedError / ExecutionHaltedError. */
  call(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
    countLines: boolean,
    overrides: StateOverride[] = [],
  ): Promise<CallResult> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      block.header,
      true,
      async () => {
        await this.overrides.apply(overrides);
        const { result, intrinsic, lineCounts } = await this.countedCall(req, block, gas, countLines);
        throwIfFailed(result);
        return {
          returnValue: result.execResult.returnValue,
          gasUsed: gasSpent(intrinsic, result.execResult, false),
          lineCounts,
        };
      },
      countLines,
    );
  }

  /**
   * eth_estimateGas: the smallest gas limit (within 1.5%) at which the call succeeds, found by
   * binary search as geth does. With `countLines`, also the line counts of the transaction the call
   * would be at that limit (sentAs), run once more at it: the counts its submission will have. With
   * `judge` (linea_estimateGas), the first run is watched and stopped at the first module past its
   * limit, and the final counts judged: its reason is thrown. `price`: the gas price a call that names
   * none runs at (GASPRICE), not charged (Besu's estimate: allowUnderpriced). `chargeAt`: the sender
   * must then be able to buy the estimate at this price, with the value (LineaEstimateGas's simulation
   * at the estimate), else UpfrontCostError. `overrides`: state overrides the call runs on (geth's
   * third param, LineaEstimateGas's second).
   */
  estimateGas(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
    opts: {
      countLines?: boolean;
      judge?: (counts: LineCounts) => Error | undefined;
      price?: bigint;
      chargeAt?: bigint;
      overrides?: StateOverride[];
    } = {},
  ): Promise<{ gas: bigint; lineCounts: LineCounts | undefined }> {
    const hi0 = cappedGas(req, gasCap);
    const judge = opts.judge;
    const counting = opts.countLines === true || judge !== undefined;
    return this.withState(
      root,
      block.header,
      true,
      async () => {
        await this.overrides.apply(opts.overrides ?? []);
        const intrinsic = this.intrinsicOf(req);
        // Every try starts from the same state and leaves it so: the state is read once for them all.
        const reads = readOnce(stateBackend(this.vm));
        const attempt = async (gas: bigint): Promise<EVMResult> => {
          await this.vm.evm.journal.checkpoint();
          try {
            return await this.runCall(req, block, gas - intrinsic.upfront, {
              untouched: !counting,
              price: opts.price,
              reads,
            });
          } finally {
            await this.vm.evm.journal.revert();
          }
        };
        /** The estimate `gas`, once the sender is known to be able to buy it (`chargeAt`). */
        const bought = async (gas: bigint): Promise<bigint> => {
          if (opts.chargeAt === undefined) return gas;
          const sender = req.from ?? ZERO_ADDRESS;
          const balance = (await this.vm.stateManager.getAccount(new Address(sender)))?.balance ?? 0n;
          const want = gas * opts.chargeAt + (req.value ?? 0n);
          if (balance < want) throw new UpfrontCostError(want, balance, sender);
          return gas;
        };
        /** The counts of the call sent with `gas`, judged; undefined when lines are not asked for. */
        const countAt = async (gas: bigint, run?: EVMResult): Promise<LineCounts | undefined> => {
          if (!counting) return undefined;
          const tx = (await this.sentAs(req, block))(gas);
          this.counter.setActive(true);
          if (run === undefined) {
            await this.counter.begin(sentBaseFee(block));
            run = await attempt(gas);
          }
          const counts = this.counter.end(tx, run);
          this.counter.setActive(false);
          const refusal = judge?.(counts);
          if (refusal !== undefined) throw refusal;
          return counts;
        };
        // A plain transfer to an account without code is tried with its intrinsic gas alone first, as
        // geth does (gasestimator.go); a precompile, which has no code either, fails that and is searched.
        if ((req.data === undefined || req.data.length === 0) && req.to !== undefined && hi0 >= intrinsic.floor) {
          const code = await this.vm.stateManager.getCode(new Address(req.to));
          if (code.length === 0) {
            this.counter.setActive(counting);
            await this.counter.begin(sentBaseFee(block));
            const probe = await attempt(intrinsic.floor);
            this.counter.setActive(false);
            if (probe.execResult.exceptionError === undefined)
              return { gas: await bought(intrinsic.floor), lineCounts: await countAt(intrinsic.floor, probe) };
          }
        }
        if (hi0 < intrinsic.floor) throw new ExecutionHaltedError(`gas required exceeds allowance (${hi0})`);
        // Judged, the first run counts its lines and stops at the first module past its limit: a
        // call that overflows is refused for it, not after running to its end or its time limit.
        if (judge !== undefined) {
          this.counter.setActive(true);
          await this.counter.begin(sentBaseFee(block));
          this.guard.watch(() => judge(this.counter.liveCounts()));
        }
        const first = await attempt(hi0);
        this.guard.watch(undefined);
        this.counter.setActive(false);
        if (this.guard.stopped !== undefined) throw this.guard.stopped;
        throwIfFailed(first);
        // As geth's gasestimator.go: the gas used (after refunds) bounds from below; the gas used before
        // refunds plus the stipend and the 1/64 kept back by a call frame is tried first; then bisection
        // skewed low, until the bracket is within 1.5% of its top.
        let lo = gasSpent(intrinsic, first.execResult, true) - 1n;
        let hi = hi0;
        const optimistic = ((gasSpent(intrinsic, first.execResult, false) + 2300n) * 64n) / 63n;
        if (optimistic < hi) {
          const r = await attempt(optimistic);
          if (r.execResult.exceptionError === undefined) hi = optimistic;
          else lo = optimistic;
        }
        while (lo + 1n < hi && Number(hi - lo) / Number(hi) >= ESTIMATE_ERROR_RATIO) {
          let mid = lo + (hi - lo) / 2n;
          if (mid > lo * 2n) mid = lo * 2n;
          const r = await attempt(mid);
          if (r.execResult.exceptionError === undefined) hi = mid;
          else lo = mid;
        }
        const lineCounts = await countAt(hi);
        return { gas: await bought(hi), lineCounts };
      },
      false,
    );
  }

  /**
   * eth_createAccessList, as geth's (internal/ethapi AccessList): the call is run with the access list
   * found so far until running with it finds no more; the accounts and slots it touches, less the
   * sender, the target and the precompiles unless slots of theirs are read, and the gas it uses with
   * that list paid for. A call that fails still gives its list, with the failure as `error`.
   */
  createAccessList(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
  ): Promise<{ accessList: [Uint8Array, Uint8Array[]][]; gasUsed: bigint; error?: string }> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      block.header,
      true,
      async () => {
        const skip = new Set([
          ...this.overrides.forkPrecompiles().keys(),
          bytesToUnprefixedHex(req.from ?? ZERO_ADDRESS),
          req.to ? bytesToUnprefixedHex(req.to) : '',
        ]);
        let accessList = req.accessList ?? [];
        for (;;) {
          const run = { ...req, accessList };
          await this.vm.evm.journal.checkpoint();
          const touched = new Map<string, Set<string>>();
          const intrinsic = this.intrinsicOf(run);
          if (gas < intrinsic.upfront)
            throw new ExecutionHaltedError(`intrinsic gas too low: gas ${gas}, minimum needed ${intrinsic.upfront}`);
          let result: EVMResult;
          try {
            result = await this.runCall(run, block, gas - intrinsic.upfront, { access: touched });
          } finally {
            await this.vm.evm.journal.revert();
          }
          const found: [Uint8Array, Uint8Array[]][] = [];
          for (const [addr, slots] of touched) {
            if (skip.has(addr) && slots.size === 0) continue;
            found.push([hexToBytes(`0x${addr}`), [...slots].map((s) => hexToBytes(`0x${s.padStart(64, '0')}`))]);
          }
          if (sameAccessList(found, accessList)) {
            const error = result.execResult.exceptionError?.error;
            return {
              accessList,
              gasUsed: gasSpent(intrinsic, result.execResult, false),
              ...(error !== undefined && { error: gethError(error) }),
            };
          }
          accessList = found;
        }
      },
      false,
    );
  }

  /** Line counts of a signed transaction run on the state after `parent` (stage RPC check). */
  countTransaction(tx: TypedTransaction, root: Uint8Array, header: HeaderData): Promise<LineCounts | undefined> {
    return this.withState(root, header, false, async () => {
      const context = createBlock({ header }, { common: this.vm.common });
      await this.counter.begin();
      try {
        const result = await runTransaction(this.vm, {
          tx,
          block: context,
          skipNonce: true,
          skipHardForkValidation: true,
        });
        return this.counter.end(tx, result);
      } catch {
        // It cannot run on the pending state (yet); the sequencer stage still checks it.
        return undefined;
      }
    });
  }

  /**
   * Line counts of a call as linea_estimateGas counts it (a conflation of its own): without a gas,
   * the transaction it would be at its estimate; a call that fails is counted as far as it went, at
   * the gas given or the cap.
   */
  async countCall(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
    price?: bigint,
  ): Promise<LineCounts> {
    if (req.gas === undefined) {
      try {
        return (await this.estimateGas(req, block, root, gasCap, { countLines: true, price })).lineCounts as LineCounts;
      } catch (e) {
        if (!(e instanceof ExecutionRevertedError || e instanceof ExecutionHaltedError)) throw e;
      }
    }
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      block.header,
      true,
      async () => (await this.countedCall(req, block, gas, true, price)).lineCounts as LineCounts,
    );
  }

  /** Runs a mined block's transactions again on its parent's state, counting lines as its builder did. */
  async replayLines(
    root: Uint8Array,
    header: HeaderData,
    candidates: PoolTx[],
  ): Promise<{ totals: LineCounts; added: LineCounts[] }> {
    const result = await this.buildOnScratch(root, { header, candidates, limits: undefined });
    return { totals: result.lineTotals, added: result.lineAdded };
  }

  /**
   * Runs a mined block's transactions again on its parent's state, tracing each (or only the one at
   * `only`, the ones before it run untraced) with a new tracer named by `options`.
   */
  traceBlock(
    root: Uint8Array,
    block: Block,
    senders: Uint8Array[],
    options: TraceOptions,
    only?: number,
  ): Promise<{ txHash: Uint8Array; result: TraceResult }[]> {
    return this.withState(
      root,
      block.header,
      options.timeout ?? true,
      async () => {
        await this.counter.startBlock();
        // The block's own writes before its transactions (beacon root, parent hash), as when it was mined.
        await beginBlock(this.vm, block, this.daoForkBlock);
        const sm = this.vm.stateManager;
        const byzantium = this.vm.common.gteHardfork(Hardfork.Byzantium);
        const out: { txHash: Uint8Array; result: TraceResult }[] = [];
        let gasUsed = 0n;
        for (const [i, tx] of block.transactions.entries()) {
          if (only !== undefined && i > only) break;
          const start = [senders[i], ...(tx.to === undefined ? [] : [tx.to.bytes]), block.header.coinbase.bytes];
          const tracer = only === undefined || i === only ? makeTracer(options, this.tracerContext(start)) : undefined;
          const run = (observer?: Tracer) =>
            runTransaction(
              this.vm,
              { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true },
              senders[i],
              observer,
            );
          this.counter.beginTx();
          const withState = tracer?.capture !== undefined;
          // Before Byzantium a receipt holds the state root after its transaction: runTx flushes the
          // transaction's writes into the trie, where a revert does not reach them. The state before
          // it is then read at the root it started from, and nothing runs twice.
          const rootBefore = withState && !byzantium ? await sm.getStateRoot() : undefined;
          if (withState && byzantium) await this.vm.evm.journal.checkpoint();
          const result = await run(tracer);
          const lineCounts = this.counter.endTx(tx, result);
          this.counter.commitTx();
          if (rootBefore !== undefined) {
            await tracer?.capture?.('post', stateReader(sm));
            const rootAfter = await sm.getStateRoot();
            await sm.setStateRoot(rootBefore);
            await tracer?.capture?.('pre', stateReader(sm));
            await sm.setStateRoot(rootAfter);
          } else if (withState) {
            // The state after the transaction, then before it; then the transaction again, untraced.
            await tracer?.capture?.('post', stateReader(sm));
            await this.vm.evm.journal.revert();
            await tracer?.capture?.('pre', stateReader(sm));
            const counting = this.counter.isActive;
            this.counter.setActive(false);
            try {
              await run();
            } finally {
              this.counter.setActive(counting);
            }
          }
          gasUsed += result.totalGasSpent;
          if (tracer === undefined) continue;
          const summary = {
            from: senders[i],
            to: tx.to?.bytes,
            createdAddress: result.createdAddress?.bytes,
            input: tx.data,
            value: tx.value,
            gasLimit: tx.gasLimit,
            gasUsed: result.totalGasSpent,
            error: result.execResult.exceptionError?.error,
            returnValue: result.execResult.returnValue,
            lineCounts,
            blockHash: block.hash(),
            blockNumber: block.header.number,
            txHash: tx.hash(),
            txIndex: i,
          };
          out.push({ txHash: tx.hash(), result: tracer.result(summary) });
        }
        return out;
      },
      countsLines(options),
    );
  }

  /** debug_traceCall: a call on the state after `block`, with overrides, traced as `options` say. */
  traceCall(
    req: CallRequest,
    mined: Block,
    root: Uint8Array,
    gasCap: bigint,
    overrides: StateOverride[],
    options: TraceOptions,
  ): Promise<TraceResult> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      mined.header,
      options.timeout ?? true,
      async () => {
        await this.overrides.apply(overrides);
        const block = this.overrides.block(mined, options.blockOverrides);
        this.useForkOf(block.header);
        const start = [
          req.from ?? ZERO_ADDRESS,
          ...(req.to === undefined ? [] : [req.to]),
          block.header.coinbase.bytes,
        ];
        const tracer = makeTracer(options, this.tracerContext(start));
        const intrinsic = this.intrinsicOf(req);
        // The transaction it would be, for the line counts, where the tracer wants them.
        const sent = this.counter.isActive ? await this.sentAs(req, block) : undefined;
        await this.counter.begin(sentBaseFee(block));
        if (tracer.capture !== undefined) await this.vm.evm.journal.checkpoint();
        const result = await this.runCall(req, block, gas > intrinsic.upfront ? gas - intrinsic.upfront : 0n, {
          observer: tracer,
        });
        const lineCounts = this.counter.end(sent?.(req.gas ?? gasSpent(intrinsic, result.execResult, false)), result);
        if (tracer.capture !== undefined) {
          await tracer.capture('post', stateReader(this.vm.stateManager));
          await this.vm.evm.journal.revert();
          await tracer.capture('pre', stateReader(this.vm.stateManager));
        }
        return tracer.result({
          from: req.from ?? ZERO_ADDRESS,
          to: req.to,
          createdAddress: result.createdAddress?.bytes,
          input: req.data ?? new Uint8Array(),
          value: req.value ?? 0n,
          gasLimit: gas,
          gasUsed: gasSpent(intrinsic, result.execResult, true),
          error: result.execResult.exceptionError?.error,
          returnValue: result.execResult.returnValue,
          lineCounts,
        });
      },
      countsLines(options),
    );
  }

  /** eth_simulateV1: blocks of calls on the state after `parent` (simulate.ts). */
  simulate(
    parent: Block,
    root: Uint8Array,
    input: SimBlockInput<StateOverride>[],
    opts: SimOptions,
  ): Promise<SimulatedBlock[]> {
    return this.withState(root, parent.header, true, async () => {
      const host: SimHost<StateOverride> = {
        vm: this.vm,
        useForkOf: (header) => this.useForkOf(header),
        applyOverrides: (overrides) => this.overrides.apply(overrides),
        simulated: (number, hash) => this.simulatedHashes.set(number, hash),
        runCall: async (call, block, gasLimit, gasPrice, tx, tracer) => {
          await this.counter.begin();
          const result = await this.runCall(
            { ...call, gasPrice, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined },
            block,
            gasLimit,
            { prepaid: true, settle: true, observer: tracer },
          );
          return { result, lineCounts: this.counter.end(tx, result) };
        },
      };
      try {
        return await simulateBlocks(host, parent, input, opts);
      } finally {
        this.simulatedHashes.clear();
      }
    });
  }

  /** The block `candidates` would make on the state `root`, built and thrown away (the pending block). */
  async preview(
    root: Uint8Array,
    header: HeaderData,
    candidates: PoolTx[],
    limits: LineLimits | undefined,
    screen: BuildInput['screen'],
    blockRules?: BuildInput['blockRules'],
  ): Promise<{ block: Block; receipts: Receipt[] }> {
    const result = await this.buildOnScratch(root, { header, candidates, limits, screen, blockRules });
    return { block: result.block, receipts: result.receipts };
  }

  /** A block built on the scratch state `root` and thrown away. */
  private buildOnScratch(
    root: Uint8Array,
    input: Pick<BuildInput, 'header' | 'candidates' | 'limits' | 'screen' | 'blockRules'>,
  ): Promise<BuildResult> {
    return this.withState(root, input.header, false, async () => {
      return buildBlock({ ...input, vm: this.vm, lineCounter: this.counter, daoForkBlock: this.daoForkBlock });
    });
  }
}

/** The same accounts and slots, in any order. */
function sameAccessList(a: [Uint8Array, Uint8Array[]][], b: [Uint8Array, Uint8Array[]][]): boolean {
  const key = (list: [Uint8Array, Uint8Array[]][]) =>
    list
      .flatMap(([address, slots]) => [
        bytesToUnprefixedHex(address),
        ...slots.map((s) => `${bytesToUnprefixedHex(address)}:${bytesToUnprefixedHex(s)}`),
      ])
      .sort()
      .join(',');
  return key(a) === key(b);
}
