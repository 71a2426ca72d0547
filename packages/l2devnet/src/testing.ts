/**
 * Test-runner helpers (`l2devnet/testing`). `useDevnet()`, called once at the top of a test file,
 * starts a fresh in-memory devnet for that file before its first test and closes it after the
 * last, and takes an `evm_snapshot` before each test and reverts to it after, so every test starts
 * from the state the file's `beforeAll` hooks left. Reverting a snapshot costs far less than
 * starting a devnet, which is why tests share one per file.
 *
 * The hooks are the runner's: jest's and vitest's globals (`beforeAll`, ...), mocha's (`before`,
 * ...), or the ones passed in (vitest without `globals: true`).
 */
import { EventEmitter } from 'node:events';

import { createDevnet } from './index';
import type { Devnet, DevnetMessage, DevnetOptions, DevnetProvider } from './index';

// Symbol.asyncDispose is missing from a test runner's realm on Node 20; see index.ts.
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');

type Hook = (fn: () => Promise<void>) => unknown;

/** A runner's hook functions; mocha's `before`/`after` are taken for `beforeAll`/`afterAll`. */
export interface TestHooks {
  beforeAll: Hook;
  afterAll: Hook;
  beforeEach: Hook;
  afterEach: Hook;
}

function globalHooks(): TestHooks {
  const g = globalThis as Record<string, unknown>;
  const pick = (...names: string[]) => names.map((n) => g[n]).find((f) => typeof f === 'function') as Hook | undefined;
  const hooks = {
    beforeAll: pick('beforeAll', 'before'),
    afterAll: pick('afterAll', 'after'),
    beforeEach: pick('beforeEach'),
    afterEach: pick('afterEach'),
  };
  if (Object.values(hooks).some((h) => h === undefined)) {
    throw new Error(
      'useDevnet: no test-runner hooks found; pass them: useDevnet(options, { beforeAll, afterAll, beforeEach, afterEach })',
    );
  }
  return hooks as TestHooks;
}

/** The provider handed out at once: it forwards to the file's devnet once that has started. */
class ForwardingProvider extends EventEmitter implements DevnetProvider {
  target: DevnetProvider | undefined;

  request(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    if (this.target === undefined) {
      return Promise.reject(new Error(`useDevnet: ${args.method} before the devnet started (it starts in beforeAll)`));
    }
    return this.target.request(args);
  }

  override on(event: 'message', listener: (message: DevnetMessage) => void): this {
    return super.on(event, listener);
  }

  override removeListener(event: 'message', listener: (message: DevnetMessage) => void): this {
    return super.removeListener(event, listener);
  }
}

/**
 * A devnet for this test file, reverted after each test. The returned object can be kept at the
 * top of the file: `provider` works once the file's first `beforeAll` has run; the other fields
 * are read inside hooks and tests.
 */
export function useDevnet(options: DevnetOptions = {}, hooks: TestHooks = globalHooks()): Devnet {
  const provider = new ForwardingProvider();
  const forward = (message: DevnetMessage) => provider.emit('message', message);
  let devnet: Devnet | undefined;
  let snapshot: string | undefined;
  const current = (field: string): Devnet => {
    if (devnet === undefined) throw new Error(`useDevnet: ${field} is there once the devnet started (in beforeAll)`);
    return devnet;
  };
  const close = async () => {
    const d = devnet;
    devnet = undefined;
    provider.target = undefined;
    await d?.close();
  };

  hooks.beforeAll(async () => {
    devnet = await createDevnet(options);
    devnet.provider.on('message', forward);
    provider.target = devnet.provider;
  });
  hooks.beforeEach(async () => {
    // With an L1 (l1: true), one snapshot covers both chains.
    snapshot = (await current('evm_snapshot').provider.request({ method: 'evm_snapshot' })) as string;
  });
  hooks.afterEach(async () => {
    const id = snapshot;
    snapshot = undefined;
    if (id === undefined || devnet === undefined) return;
    // The L1 (l1: true) goes back too, once the work the node started between the chains has ended.
    const reverted = await devnet.provider.request({ method: 'evm_revert', params: [id] });
    if (reverted !== true)
      throw new Error(`useDevnet: evm_revert ${id} failed: the test reverted past the snapshot taken before it`);
  });
  hooks.afterAll(close);

  return {
    provider,
    get url() {
      return current('url').url;
    },
    get wsUrl() {
      return current('wsUrl').wsUrl;
    },
    get accounts() {
      return current('accounts').accounts;
    },
    get chain() {
      return current('chain').chain;
    },
    get viemChain() {
      return current('viemChain').viemChain;
    },
    get l1() {
      return current('l1').l1;
    },
    close,
    [asyncDispose]: close,
  };
}

export type { Devnet, DevnetOptions, DevnetProvider };
