/**
 * A call worker: a thread with its own EVM (a Simulator, as the main thread's) for each chain it
 * serves, running eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, line counts of
 * calls and traces of calls and mined blocks on the state root it is given.
 * State is read from the main thread's state database a node at a time and kept: trie nodes and code
 * are keyed by their hashes, and the flat maps by what their values are a pure function of, so
 * nothing a worker keeps can go stale and nothing needs telling when blocks are made.
 */
import { parentPort } from 'node:worker_threads';

import { Block, createBlockFromRLP, createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';

import { chainCommon } from '../../config/genesis';
import { initFastCrypto } from '../../config/fastCrypto';
import type { LineCounts } from '../../lines/conflation';
import { LineLimits } from '../../lines/lineLimits';
import { FlatState } from '../../state/flatState';
import { storedBlockOptions } from '../../store/chainStore';
import type { StateSource } from '../../state/stateDb';
import { LruCache } from '../../support/lru';
import { simulatedBlockData } from '../simulate';
import { Simulator } from '../simulator';
import { errorShape, ownBytes } from './protocol';
import type { BlockRef, CallOps, FromWorker, SessionInit, ToWorker } from './protocol';

const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

/** Answers to this worker's questions to the main thread, by id. */
const asked = new Map<number, (value: Uint8Array | undefined) => void>();
let nextAsk = 1;

function ask(question: { t: 'get'; session: number; key: string } | { t: 'hash'; session: number; n: bigint }) {
  const id = nextAsk++;
  return new Promise<Uint8Array | undefined>((resolve) => {
    asked.set(id, resolve);
    send({ ...question, id });
  });
}

/** The main thread's state database, as far as this worker has read it. */
class RemoteState implements StateSource {
  readonly flat = new FlatState();
  private readonly nodes = new LruCache<string, Uint8Array>(200_000);

  constructor(private readonly session: number) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const kept = this.nodes.get(key);
    if (kept !== undefined) return kept;
    // A miss is not kept: the node may be written later.
    const value = await ask({ t: 'get', session: this.session, key });
    if (value !== undefined) this.nodes.set(key, value);
    return value;
  }
}

class Session {
  private readonly blocks = new LruCache<number, Block>(64);

  private constructor(
    readonly simulator: Simulator,
    private readonly common: Common,
    private readonly scheduled: boolean,
  ) {}

  static async open(id: number, init: SessionInit): Promise<Session> {
    const { common, scheduled } = chainCommon(init.chainId, init.hardfork, init.genesis);
    const blockchain = {
      getBlock: async (n: number) => {
        const hash = (await ask({ t: 'hash', session: id, n: BigInt(n) })) ?? new Uint8Array(32);
        return { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    };
    const simulator = await Simulator.create(common.copy(), new RemoteState(id), blockchain, init.simulator);
    return new Session(simulator, common, scheduled);
  }

  /** The block as the main thread's store decodes it; a call's without its transactions. */
  block(ref: BlockRef): Block {
    let block = this.blocks.get(ref.id);
    if (block === undefined) {
      const opts = storedBlockOptions(this.common, this.scheduled);
      block = ref.full
        ? createBlockFromRLP(ref.rlp, opts)
        : new Block(createBlockHeaderFromRLP(ref.rlp, opts), [], [], undefined, opts);
      this.blocks.set(ref.id, block);
    }
    return block;
  }
}

const sessions = new Map<number, Promise<Session>>();

async function run(message: Extract<ToWorker, { t: 'run' }>): Promise<unknown> {
  const session = await sessions.get(message.session);
  if (session === undefined) throw new Error('the chain was closed');
  const block = session.block(message.block);
  const { simulator } = session;
  const { root } = message;
  switch (message.op) {
    case 'call': {
      const [req, gasCap, countLines, overrides] = message.args as CallOps['call'];
      const result = await simulator.call(req, block, root, gasCap, countLines, overrides);
      return { ...result, returnValue: ownBytes(result.returnValue) };
    }
    case 'estimateGas': {
      const [req, gasCap, opts] = message.args as CallOps['estimateGas'];
      const limits = opts.limits && LineLimits.of(opts.limits);
      const judge = opts.judged === true ? (counts: LineCounts) => limits?.callRefusal(counts) : undefined;
      const { price, chargeAt, overrides } = opts;
      return simulator.estimateGas(req, block, root, gasCap, {
        countLines: opts.judged,
        judge,
        price,
        chargeAt,
        overrides,
      });
    }
    case 'createAccessList': {
      const [req, gasCap] = message.args as CallOps['createAccessList'];
      return simulator.createAccessList(req, block, root, gasCap);
    }
    case 'countCall': {
      const [req, gasCap, price] = message.args as CallOps['countCall'];
      return simulator.countCall(req, block, root, gasCap, price);
    }
    case 'traceCall': {
      const [req, gasCap, overrides, options] = message.args as CallOps['traceCall'];
      return simulator.traceCall(req, block, root, gasCap, overrides, options);
    }
    case 'simulate': {
      const [input, opts] = message.args as CallOps['simulate'];
      return (await simulator.simulate(block, root, input, opts)).map(simulatedBlockData);
    }
    case 'traceBlock': {
      const [senders, options, only] = message.args as CallOps['traceBlock'];
      return simulator.traceBlock(root, block, senders, options, only);
    }
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.t) {
    case 'open': {
      const opening = Session.open(message.session, message.init);
      // A chain that cannot open here fails its calls (run awaits it), not the thread.
      opening.catch(() => undefined);
      sessions.set(message.session, opening);
      return;
    }
    case 'close':
      sessions.delete(message.session);
      return;
    case 'reply': {
      const resolve = asked.get(message.id);
      asked.delete(message.id);
      resolve?.(message.value);
      return;
    }
    case 'run':
      run(message).then(
        (value) => send({ t: 'done', id: message.id, value }),
        (e: unknown) => {
          try {
            send({ t: 'failed', id: message.id, error: errorShape(e) });
          } catch {
            // Fields that cannot be cloned: the class and message still say what failed.
            send({ t: 'failed', id: message.id, error: { ...errorShape(e), fields: {} } });
          }
        },
      );
  }
});

initFastCrypto().then(() => send({ t: 'ready' }));
