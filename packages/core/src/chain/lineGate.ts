/**
 * The line gate: Linea's sequencer rules on prover line counts, and the records they leave.
 *
 * - At submission (stage RPC): a denied sender or recipient is refused; a hash the sequencer already
 *   excluded for its own line count is refused at once (Linea's in-memory cache); a forced exclusion
 *   or a transaction whose count on the pending state overflows a module is refused and recorded.
 * - In block building (stage SEQUENCER): `screen` decides each candidate before it runs (forced
 *   exclusions, denied addresses); the block builder excludes what overflows; `sequencerRecords`
 *   makes their records, written with the block.
 * - Line counts of calls, mined blocks and mined transactions, counted as the builder counts them.
 *
 * The limits in force are the limits file's until l2_setLineLimits changes them.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';

import { DeniedAddressError, InvalidLimitsError, KnownLineCountOverflowError, LineLimitExceededError } from '../errors';
import { asCandidates, buildFields } from '../exec/blockBuilder';
import type { BuildResult } from '../exec/blockBuilder';
import type { CallRequest, Simulator } from '../exec/simulator';
import type { CallSession } from '../exec/workers/callPool';
import { ExclusionControl } from '../lines/exclusionControl';
import type { ForcedExclusion } from '../lines/exclusionControl';
import { ExclusionStore } from '../lines/exclusionStore';
import type { ExclusionFilter, ExclusionRecord, RejectionStage } from '../lines/exclusionStore';
import type { LineCounts } from '../lines/conflation';
import type { LineCounter } from '../lines/lineCounter';
import type { LineLimits, LineOverflow } from '../lines/lineLimits';
import type { TracerProfile, TracerProfileName } from '../lines/lineProfiles';
import type { PoolTx } from '../pool/txPool';
import { LruCache } from '../support/lru';
import type { KvOp } from '../store/kvStore';
import type { ChainHead } from './head';

/** Linea's sequencer: `--plugin-linea-over-line-count-limit-cache-size` defaults to 10,000 hashes. */
const OVER_LINE_COUNT_CACHE_SIZE = 10_000;

/** How a candidate is decided before a block runs it (blockBuilder's `screen`). */
export type Screen = (ptx: PoolTx) => { overflow: LineOverflow } | { error: Error } | undefined;

export interface LineGateOptions {
  /** Line limits; undefined disables the line-count checks (counting still runs). */
  lineLimits?: LineLimits;
  /** Refuse overflowing transactions at submission (stage RPC); default true. */
  rpcLineCheck?: boolean;
}

export class LineGate {
  private readonly exclusions: ExclusionStore;
  /** Forced exclusions and the deny list (set by tests through l2_forceExclusion, l2_setDenyList). */
  private readonly control = new ExclusionControl();
  /** Whether submission runs the RPC-stage check (--no-rpc-line-check turns it off). */
  readonly rpcLineCheck: boolean;
  /** The limits in force: the file's, or as changed at run time (setLineLimits). */
  private current: LineLimits | undefined;
  /** The limits the node started with, which resetLineLimits restores. */
  private readonly fileLimits: LineLimits | undefined;
  /**
   * Hashes the sequencer excluded for their own line count (TX_MODULE_LINE_COUNT_OVERFLOW): a
   * resubmission is refused at once, as by Linea's in-memory cache (its default size, 10,000).
   */
  private readonly overLineCountLimit = new LruCache<string, true>(OVER_LINE_COUNT_CACHE_SIZE);

  constructor(
    private readonly head: ChainHead,
    private readonly simulator: Simulator,
    /** The mining VM's line counter: blocks are counted as they are built. */
    readonly counter: LineCounter,
    opts: LineGateOptions,
    /** The call workers, where they run (line counts of calls; else the main thread's simulator). */
    private workers?: CallSession,
  ) {
    this.exclusions = new ExclusionStore(head.kv, () => head.clock.now());
    this.current = this.fileLimits = opts.lineLimits;
    this.rpcLineCheck = opts.rpcLineCheck ?? true;
  }

  /** Counts calls on the main thread from now on (the session is Calls', which closes it). */
  leaveWorkers(): void {
    this.workers = undefined;
  }

  /** The tracer profile the line counter follows. */
  get tracer(): TracerProfileName {
    return this.counter.profile.name;
  }

  /** The modules counted, their spillage and notes, as the tracer and counter in use count them. */
  get profile(): TracerProfile {
    return this.counter.profile;
  }

  /** The limits in force; undefined when line-count checks are off. */
  get limits(): LineLimits | undefined {
    return this.current;
  }

  /** Changes some modules' limits until the next reset (l2_setLineLimits); from the next check on. */
  setLineLimits(changes: Record<string, number>): Promise<void> {
    return this.head.exclusive(async () => {
      if (this.current === undefined)
        throw new InvalidLimitsError('line-count checks are off: there are no limits to change');
      this.current = this.current.with(changes);
    });
  }

  /** Restores the limits the node started with (l2_resetLineLimits). */
  resetLineLimits(): Promise<void> {
    return this.head.exclusive(async () => {
      this.current = this.fileLimits;
    });
  }

  // ---------------------------------------------------------------- stage RPC

  /** Why `tx` from `from` is refused by the deny list (Linea's words), if it is. */
  deniedReason(tx: TypedTransaction, from: Uint8Array): string | undefined {
    return this.control.deniedReason(tx, from);
  }

  /** The refusals due before a transaction is even validated: a denied address, a known overflow. */
  refuseAtOnce(tx: TypedTransaction, from: Uint8Array, hash: Uint8Array): void {
    const denied = this.control.deniedReason(tx, from);
    if (denied !== undefined) throw new DeniedAddressError(denied);
    if (this.overLineCountLimit.get(bytesToHex(hash)) !== undefined) throw new KnownLineCountOverflowError(hash);
  }

  /** A forced exclusion at stage RPC matching `ptx` is used up and refuses it. */
  async refuseForced(ptx: PoolTx): Promise<void> {
    const forced = this.control.match(ptx, 'RPC', true);
    if (forced !== undefined) await this.refuseAtRpc(ptx, this.forcedOverflow(forced));
  }

  /** Whether submission checks line counts (limits in force, the RPC-stage check on). */
  get checksAtRpc(): boolean {
    return this.current !== undefined && this.rpcLineCheck;
  }

  /** Stage RPC: simulates `ptx` on the pending state; refuses and records it if it overflows. */
  async checkAtRpc(ptx: PoolTx): Promise<void> {
    const counts = await this.transactionLineCounts(ptx.tx);
    const overflow = counts === undefined ? undefined : this.current?.txOverflow(counts);
    if (overflow !== undefined) await this.refuseAtRpc(ptx, overflow);
  }

  /**
   * The RPC-stage verdict of `ptx` read from a block built with it on the pending state: its own
   * overflow, if the builder excluded it for one (a forced SEQUENCER exclusion is not that verdict).
   */
  overflowIn(build: BuildResult, ptx: PoolTx): LineOverflow | undefined {
    return build.excluded.find((e) => e.ptx === ptx && e.forced !== true)?.overflow;
  }

  /** Records a stage-RPC exclusion and throws the refusal. */
  async refuseAtRpc(ptx: PoolTx, overflow: LineOverflow): Promise<never> {
    const error = new LineLimitExceededError(ptx.hash, overflow.module, overflow.count, overflow.limit);
    const record = this.record(ptx, overflow, 'RPC', this.head.number + 1n, error.message);
    await this.exclusions.put(record);
    this.head.events.emit('excluded', record);
    throw error;
  }

  // ---------------------------------------------------------------- stage SEQUENCER

  /**
   * Decides a pool transaction before a block runs it: dropped when its sender or recipient is
   * denied, excluded when a forced exclusion matches (used up only when `consume`).
   */
  screen(consume: boolean): Screen {
    return (ptx) => {
      const denied = this.control.deniedReason(ptx.tx, ptx.sender);
      if (denied !== undefined) return { error: new DeniedAddressError(denied) };
      const rule = this.control.match(ptx, 'SEQUENCER', consume);
      return rule === undefined ? undefined : { overflow: this.forcedOverflow(rule) };
    };
  }

  /** The records of a block's exclusions and the rows that store them, written with the block. */
  sequencerRecords(build: BuildResult): { records: ExclusionRecord[]; ops: KvOp[] } {
    const n = build.block.header.number;
    const records = build.excluded.map(({ ptx, overflow }) => this.record(ptx, overflow, 'SEQUENCER', n));
    return { records, ops: records.flatMap((r) => this.exclusions.ops(r)) };
  }

  /** Once the block with them is committed: the excluded hashes are refused at once from now on. */
  excluded(records: ExclusionRecord[]): void {
    for (const r of records) {
      this.overLineCountLimit.set(bytesToHex(r.txHash), true);
      this.head.events.emit('excluded', r);
    }
  }

  /** The overflow a forced exclusion reports: its count, or the module's limit plus one. */
  private forcedOverflow(rule: ForcedExclusion): LineOverflow {
    const limit = this.current?.limits[rule.module] ?? 0;
    return { module: rule.module, count: rule.count ?? limit + 1, limit };
  }

  private record(
    ptx: PoolTx,
    overflow: LineOverflow,
    stage: RejectionStage,
    /** The block being built (stage SEQUENCER) or the pending block (stage RPC). */
    blockNumber: bigint,
    reasonMessage = new LineLimitExceededError(undefined, overflow.module, overflow.count, overflow.limit).message,
  ): ExclusionRecord {
    return {
      txHash: ptx.hash,
      from: ptx.sender,
      nonce: ptx.nonce,
      stage,
      reasonMessage,
      blockNumber: stage === 'SEQUENCER' ? blockNumber : undefined,
      pendingBlock: blockNumber,
      timestamp: this.head.clock.now(),
      rawTx: ptx.tx.serialize(),
      overflows: [overflow],
    };
  }

  // ---------------------------------------------------------------- exclusion records and control

  /** The exclusion record of a transaction (l2_getTransactionExclusionStatusV1); undefined if none. */
  exclusion(hash: Uint8Array): Promise<ExclusionRecord | undefined> {
    return this.exclusions.get(hash);
  }

  /** The records kept, oldest first, by stage and block range (l2_getExclusions). */
  listExclusions(filter?: ExclusionFilter): Promise<ExclusionRecord[]> {
    return this.exclusions.list(filter);
  }

  /** The next transaction matching the rule is excluded at its stage; returns the rule's id. */
  forceExclusion(rule: ForcedExclusion): bigint {
    return this.control.force(rule);
  }

  /** Drops the forced exclusions not used yet; returns how many there were. */
  clearForcedExclusions(): number {
    return this.control.clearForced();
  }

  /** Transactions from or to these addresses are refused, as Linea's sequencer refuses them. */
  setDenyList(addresses: Uint8Array[]): void {
    this.control.setDenyList(addresses);
  }

  denyList(): string[] {
    return this.control.denyList();
  }

  // ---------------------------------------------------------------- counting

  /** Line counts of a call on the state after block `n`, as linea_estimateGas counts it, whatever its outcome. */
  async callLineCounts(req: CallRequest, n: bigint): Promise<LineCounts> {
    const { block, root } = await this.head.blockAndRoot(n);
    const cap = this.head.callGasCap();
    // At the price linea_estimateGas runs it at.
    const price = this.head.feelessPrice(req, block);
    const here = () => this.simulator.countCall(req, block, root, cap, price);
    return this.workers?.run('countCall', block, root, [req, cap, price], here) ?? here();
  }

  /**
   * The line counts a signed transaction would have as the next block's first transaction, on the
   * head state; undefined when it cannot run there (e.g. its nonce is not the next one).
   */
  async transactionLineCounts(tx: TypedTransaction): Promise<LineCounts | undefined> {
    const head = await this.head.block();
    return this.simulator.countTransaction(tx, this.head.workingRoot, this.head.nextHeader(head));
  }

  /**
   * Line counts of mined block `n`, its transactions run again on its parent's state as its builder
   * ran them: the block's totals and the lines each transaction added. Undefined for an unknown
   * block; genesis has no transactions.
   */
  async blockLineCounts(n: bigint): Promise<{ totals: LineCounts; added: LineCounts[] } | undefined> {
    // A dev chain's genesis has no transactions; a fork block's are the remote's, not run here.
    if (n === 0n && this.head.store.first === 0n)
      return (await this.head.store.getBlock(0n)) === undefined ? undefined : { totals: {}, added: [] };
    const replay = await this.head.replayInputs(n);
    if (replay === undefined) return undefined;
    const { block, root, senders } = replay;
    return this.simulator.replayLines(root, buildFields(block.header), asCandidates(block.transactions, senders));
  }

  /** The lines a mined transaction added to its block; undefined for one not mined. */
  async transactionLinesInBlock(hash: Uint8Array): Promise<{ counts: LineCounts; blockNumber: bigint } | undefined> {
    const loc = await this.head.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const lines = await this.blockLineCounts(loc.blockNumber);
    const counts = lines?.added[loc.index];
    return counts === undefined ? undefined : { counts, blockNumber: loc.blockNumber };
  }
}
