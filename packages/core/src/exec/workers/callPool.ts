/**
 * The call workers: eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, line counts of
 * calls and the debug and trace methods' traces run on threads of their own (callWorker.ts), so
 * calls use every core and the main thread keeps serving. One pool per process, shared by its chains
 * (a test process may open hundreds): each chain is a session, opened in a worker the first time one
 * of its calls runs there.
 * A call that arrives while no other call runs anywhere runs on the main thread: there it costs no
 * hop between threads (on 2 cores, one balanceOf at a time over HTTP: 1,160-1,250 calls/s through a
 * worker, 1,720-1,860 on the main thread). Only a call that arrives while another runs goes to a
 * worker, and the threads start with the first such call and stop shortly after the last chain
 * closes or after IDLE_MS without a call; until one is ready, calls run on the main thread, as they
 * do with no workers at all (`workers: 0`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { Block } from '@ethereumjs/block';

import { errorFrom, ownBytes } from './protocol';
import type { BlockRef, CallOp, CallOps, CallResultOf, FromWorker, SessionInit, ToWorker } from './protocol';

export type { SessionInit } from './protocol';

/** What a session's workers ask the main thread for. */
export interface SessionHost {
  /** A trie node or code from the state database. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Block `n`'s hash (zeros for none), for BLOCKHASH. */
  blockHash(n: bigint): Promise<Uint8Array>;
}

/**
 * A worker's young generation (V8's default is several times this): most of a call's garbage is
 * small and dies young. Measured: with wrk on balanceOf calls at 16 and 64 connections the node's
 * RSS is 388 MiB at V8's default, 328 at 4 MiB and about 340 at 8, throughput the same; a 100-call
 * eth_simulateV1 takes 27.4 ms at 4 MiB and 24.9 at 8, 16 or 32.
 */
const YOUNG_GENERATION_MB = 8;

/** How long the threads outlive the last chain (a test process opens the next one soon). */
const LINGER_MS = 2_000;

/**
 * How long the threads stay with no call before they stop, giving their memory back (about 50 MiB
 * each); the next call runs on the main thread while they start again (about 100 ms).
 */
const IDLE_MS = 10_000;

/** The worker's script: beside this file once built; the build's when run from TypeScript sources (tests). */
function workerScript(): string {
  const built = join(__dirname, 'callWorker.js');
  return existsSync(built) ? built : join(__dirname, '..', '..', '..', 'dist', 'exec', 'workers', 'callWorker.js');
}

class CallWorker {
  readonly thread: Worker;
  ready = false;
  /** Settles when the thread is ready, or has stopped before it was (its script failed to load). */
  readonly started: Promise<void>;
  private settle!: { resolve(): void; reject(e: Error): void };
  readonly opened = new Set<number>();
  /** Calls sent and not answered, by id. */
  readonly waiting = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();

  constructor(
    onMessage: (worker: CallWorker, message: FromWorker) => void,
    onExit: (worker: CallWorker, error?: Error) => void,
  ) {
    this.started = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.started.catch(() => undefined);
    this.thread = new Worker(workerScript(), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.thread.unref();
    this.thread.on('message', (message: FromWorker) => {
      if (message.t === 'ready') {
        this.ready = true;
        this.settle.resolve();
      } else onMessage(this, message);
    });
    this.thread.on('error', (e) => {
      this.settle.reject(e);
      onExit(this, e);
    });
    this.thread.on('exit', (code) => {
      this.settle.reject(new Error(`the call worker stopped (exit code ${code})`));
      onExit(this);
    });
  }

  post(message: ToWorker): void {
    this.thread.postMessage(message);
  }

  /** Sends call `id`; a thread with calls in flight keeps the process alive, an idle one does not. */
  send(id: number, waiting: { resolve(value: unknown): void; reject(e: Error): void }, message: ToWorker): void {
    if (this.waiting.size === 0) this.thread.ref();
    this.waiting.set(id, waiting);
    this.post(message);
  }

  /** Call `id`'s answer came: what waited for it, if anything still does. */
  answered(id: number): { resolve(value: unknown): void; reject(e: Error): void } | undefined {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.thread.unref();
    return waiting;
  }
}

/** A session as the pool keeps it. */
interface Opened {
  init: SessionInit;
  host: SessionHost;
  size: number;
  /** Whether its call that arrives while none runs takes the main thread (default), or a worker. */
  mainWhenIdle: boolean;
}

export class CallPool {
  private static shared: CallPool | undefined;
  private workers: CallWorker[] = [];
  private readonly sessions = new Map<number, Opened>();
  private nextSession = 1;
  private nextCall = 1;
  private nextBlock = 1;
  /** Each block as sent (its header, or all of it), with its id: the same block object is the same block to a worker. */
  private readonly headers = new WeakMap<Block, BlockRef>();
  private readonly fullBlocks = new WeakMap<Block, BlockRef>();
  private lingering: NodeJS.Timeout | undefined;
  private idleCheck: NodeJS.Timeout | undefined;
  /** When the last call was sent to a worker (performance.now()). */
  private lastCall = 0;
  private static idleMs = IDLE_MS;
  /** Calls run in the workers so far. */
  ran = 0;
  /** Calls running on the main thread now (every session's: they share its one event loop). */
  private onMain = 0;
  get threads(): number {
    return this.workers.length;
  }
  /** Why a thread failed to start: none is started again, and calls run on the main thread. */
  private failed: Error | undefined;

  /** @internal How long the threads stay with no call (tests shorten it); the previous value. */
  static setIdle(ms: number): number {
    const was = CallPool.idleMs;
    CallPool.idleMs = ms;
    if (CallPool.shared !== undefined && CallPool.shared.workers.length > 0) CallPool.shared.watchIdle(ms);
    return was;
  }

  /** Opens a chain's session in the process's pool, which grows to `size` threads. */
  static open(size: number, init: SessionInit, host: SessionHost): CallSession {
    CallPool.shared ??= new CallPool();
    return CallPool.shared.open(size, init, host);
  }

  private open(size: number, init: SessionInit, host: SessionHost): CallSession {
    const id = this.nextSession++;
    this.sessions.set(id, { init, host, size, mainWhenIdle: true });
    clearTimeout(this.lingering);
    return new CallSession(this, id);
  }

  /** @internal */
  setMainWhenIdle(session: number, on: boolean): void {
    const opened = this.sessions.get(session);
    if (opened !== undefined) opened.mainWhenIdle = on;
  }

  /** @internal */
  close(session: number): void {
    if (!this.sessions.delete(session)) return;
    for (const worker of this.workers) if (worker.opened.delete(session)) worker.post({ t: 'close', session });
    if (this.sessions.size > 0) return;
    clearTimeout(this.lingering);
    this.lingering = setTimeout(() => this.stop(), LINGER_MS);
    this.lingering.unref();
  }

  private stop(): void {
    clearTimeout(this.idleCheck);
    const workers = this.workers;
    this.workers = [];
    for (const worker of workers) void worker.thread.terminate();
  }

  /** Stops the threads once none has had a call for `idleMs` (a thread still starting counts as busy). */
  private watchIdle(delay: number): void {
    clearTimeout(this.idleCheck);
    this.idleCheck = setTimeout(() => {
      const quiet = performance.now() - this.lastCall;
      if (this.workers.some((w) => !w.ready || w.waiting.size > 0)) this.watchIdle(CallPool.idleMs);
      else if (quiet < CallPool.idleMs) this.watchIdle(CallPool.idleMs - quiet);
      else this.stop();
    }, delay);
    this.idleCheck.unref();
  }

  /**
   * Runs `op` on the main thread (`here`) when no other call runs, else in the least busy ready
   * worker, starting the threads if they are not; on the main thread while none is ready.
   * `fromWorker` turns a worker's answer into `here`'s (default: it is the same).
   * @internal
   */
  run<K extends CallOp, R>(
    session: number,
    op: K,
    block: Block,
    root: Uint8Array,
    args: CallOps[K],
    here: () => Promise<R>,
    fromWorker?: (value: CallResultOf<K>) => R,
  ): Promise<R> {
    const opened = this.sessions.get(session)!;
    if (opened.mainWhenIdle && this.onMain === 0 && !this.workers.some((w) => w.waiting.size > 0))
      return this.runHere(here);
    this.withThreads(opened);
    let worker: CallWorker | undefined;
    for (const w of this.workers)
      if (w.ready && (worker === undefined || w.waiting.size < worker.waiting.size)) worker = w;
    if (worker === undefined) return this.runHere(here);
    if (!worker.opened.has(session)) {
      worker.opened.add(session);
      worker.post({ t: 'open', session, init: opened.init });
    }
    const id = this.nextCall++;
    this.ran++;
    this.lastCall = performance.now();
    const ref = this.blockRef(block, op === 'traceBlock');
    const answer = new Promise<CallResultOf<K>>((resolve, reject) =>
      worker.send(
        id,
        { resolve: resolve as (value: unknown) => void, reject },
        { t: 'run', id, session, op, block: ref, root, args },
      ),
    );
    // Without `fromWorker`, R is CallResultOf<K> (CallSession.run's signature says so).
    return fromWorker === undefined ? (answer as Promise<unknown> as Promise<R>) : answer.then(fromWorker);
  }

  private async runHere<R>(here: () => Promise<R>): Promise<R> {
    this.onMain++;
    try {
      return await here();
    } finally {
      this.onMain--;
    }
  }

  /**
   * Starts the session's threads if they are not, and resolves once every one is ready (a
   * benchmark's warm-up, a test that must run in them); rejects if one failed to start.
   * @internal
   */
  async ready(session: number): Promise<void> {
    this.withThreads(this.sessions.get(session)!);
    await Promise.all(this.workers.map((worker) => worker.started));
    if (this.failed !== undefined) throw this.failed;
  }

  /** Starts the session's threads if they are not (the pool grows to the most any session asks for). */
  private withThreads(opened: Opened): void {
    if (this.failed !== undefined || this.workers.length >= opened.size) return;
    if (this.workers.length === 0) {
      this.lastCall = performance.now();
      this.watchIdle(CallPool.idleMs);
    }
    while (this.workers.length < opened.size)
      this.workers.push(
        new CallWorker(
          (worker, message) => this.onMessage(worker, message),
          (worker, error) => this.onExit(worker, error),
        ),
      );
  }

  private blockRef(block: Block, full: boolean): BlockRef {
    const sent = full ? this.fullBlocks : this.headers;
    let ref = sent.get(block);
    if (ref === undefined) {
      ref = { id: this.nextBlock++, full, rlp: ownBytes(full ? block.serialize() : block.header.serialize()) };
      sent.set(block, ref);
    }
    return ref;
  }

  private onMessage(worker: CallWorker, message: FromWorker): void {
    switch (message.t) {
      case 'done':
      case 'failed': {
        const waiting = worker.answered(message.id);
        if (waiting === undefined) return;
        if (message.t === 'done') waiting.resolve(message.value);
        else waiting.reject(errorFrom(message.error));
        return;
      }
      case 'get':
      case 'hash': {
        const host = this.sessions.get(message.session)?.host;
        const answer =
          host === undefined
            ? Promise.resolve(undefined)
            : message.t === 'get'
              ? host.get(message.key)
              : host.blockHash(message.n);
        answer.then(
          (value) => worker.post({ t: 'reply', id: message.id, value: value && ownBytes(value) }),
          () => worker.post({ t: 'reply', id: message.id, value: undefined }),
        );
      }
    }
  }

  /** A thread that stopped (terminated, or failed): its calls fail, and the next call starts another. */
  private onExit(worker: CallWorker, error?: Error): void {
    const i = this.workers.indexOf(worker);
    if (i >= 0) {
      this.workers.splice(i, 1);
      // Not stopped by the pool, and never ready: it cannot start here.
      if (!worker.ready) this.failed ??= error ?? new Error('the call worker stopped before it was ready');
    }
    for (const { reject } of worker.waiting.values()) reject(new Error('the call worker stopped'));
    worker.waiting.clear();
    worker.ready = false;
  }
}

/** One chain's calls in the pool. */
export class CallSession {
  constructor(
    private readonly pool: CallPool,
    private readonly id: number,
  ) {}

  /**
   * `op` on the state `root` after `block`, with the Simulator method's arguments: in a worker, or on
   * the main thread by `here` (the same use of the chain's own Simulator) when no other call runs.
   */
  run<K extends CallOp>(
    op: K,
    block: Block,
    root: Uint8Array,
    args: CallOps[K],
    here: () => Promise<CallResultOf<K>>,
  ): Promise<CallResultOf<K>>;
  /** The same, where `here` answers in another shape than the worker's, which `fromWorker` turns into it. */
  run<K extends CallOp, R>(
    op: K,
    block: Block,
    root: Uint8Array,
    args: CallOps[K],
    here: () => Promise<R>,
    fromWorker: (value: CallResultOf<K>) => R,
  ): Promise<R>;
  run<K extends CallOp, R>(
    op: K,
    block: Block,
    root: Uint8Array,
    args: CallOps[K],
    here: () => Promise<R>,
    fromWorker?: (value: CallResultOf<K>) => R,
  ): Promise<R> {
    return this.pool.run(this.id, op, block, root, args, here, fromWorker);
  }

  /**
   * @internal Whether this chain's call that arrives while none runs takes the main thread (the
   * default), or a worker as every other call does (tests that must run each call in the workers).
   */
  setMainWhenIdle(on: boolean): void {
    this.pool.setMainWhenIdle(this.id, on);
  }

  /** Resolves once the workers are ready to take this chain's calls; rejects if one failed to start. */
  ready(): Promise<void> {
    return this.pool.ready(this.id);
  }

  /** How many calls the process's workers have run (every chain's). */
  get ran(): number {
    return this.pool.ran;
  }

  /** How many threads the process's pool has started and not stopped. */
  get threads(): number {
    return this.pool.threads;
  }

  close(): void {
    this.pool.close(this.id);
  }
}
