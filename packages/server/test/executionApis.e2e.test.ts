/**
 * The execution-apis compatibility vectors (fixtures/execution-apis): geth's chain imported with its
 * genesis, then every recorded request sent over HTTP to the geth-profile path `/`, and the answer
 * compared with geth's. The few places the node answers otherwise are listed below with why; a vector
 * marked `speconly` (its result depends on the client) is compared for its shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ethereumjsFrames } from '../../core/test/ethereumjsFrames';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const DIR = join(__dirname, '..', '..', '..', 'fixtures', 'execution-apis');

/** geth's miner moves the gas limit 1/1024 towards its 60M target: the block after the head's 200M. */
const GETH_NEXT_GAS_LIMIT = 199_804_689n;
/** The contract eth_call/call-callenv.io calls (it returns its call's environment). */
const CALLED = '0x9344b07175800259691961298ca11c824e65032d';
/** geth's default --rpc.gascap. */
const GETH_RPC_GAS_CAP = 50_000_000n;

interface Deviation {
  why: string;
  /** Checks our answer to the request that differs. */
  check(ours: any, geth: any): void;
}

/** Same code; the message names the parameter and what it takes, where geth quotes Go's JSON decoder. */
const paramMessage: Deviation = {
  why: "a bad parameter's message is ours (the parameter and what it takes), not Go's JSON decoder's; the code is geth's",
  check(ours, geth) {
    expect(ours.error.code).toBe(geth.error.code);
    expect(ours.error.message).toMatch(/^invalid params: param 1 \(\w+\) must be /);
  },
};

/** A receipt from Cancun on carries its block's blob gas price, as Anvil's do; geth's only a blob transaction's. */
const blobGasPrice: Deviation = {
  why: "every receipt of a block from Cancun on carries the block's blobGasPrice, as Anvil's do (geth's: a blob transaction's only)",
  check(ours, geth) {
    const receipts = (r: any) => (Array.isArray(r) ? r : [r]);
    const strip = (r: any) => receipts(r).map(({ blobGasPrice, ...rest }: any) => ({ rest, blobGasPrice }));
    const [mine, theirs] = [strip(ours.result), strip(geth.result)];
    expect(mine.map((r: any) => r.rest)).toEqual(theirs.map((r: any) => r.rest));
    for (const r of mine) expect(r.blobGasPrice).toMatch(/^0x[0-9a-f]+$/);
  },
};

const DEVIATIONS: Record<string, Deviation> = {
  'eth_getBlockReceipts/get-block-receipts-latest.io': blobGasPrice,
  'eth_getTransactionReceipt/get-setcode-tx.io': blobGasPrice,
  'debug_getRawBlock/get-invalid-number.io': paramMessage,
  'debug_getRawHeader/get-invalid-number.io': paramMessage,
  'debug_getRawReceipts/get-invalid-number.io': paramMessage,
  'debug_getRawTransaction/get-invalid-hash.io': paramMessage,
  'debug_traceBlockByNumber/trace-block-invalid-number.io': paramMessage,
  'eth_capabilities/get-capabilities.io': {
    why: 'the node keeps every log: no deleteStrategy, where the recording geth pruned its log index to a window',
    check(ours, geth) {
      expect(ours.result.head).toEqual(geth.result.head);
      const all = { disabled: false, oldestBlock: '0x0' };
      expect(ours.result).toEqual({
        head: geth.result.head,
        state: all,
        tx: all,
        logs: all,
        receipts: all,
        blocks: all,
        stateproofs: all,
      });
    },
  },
  'testing_buildBlockV1/build-block-from-mempool.io': {
    why: "the block is built from the pool, which holds the transactions earlier vectors sent as well as this one's",
    check(ours, geth) {
      const { transactions, ...payload } = ours.result.executionPayload;
      const { transactions: recorded, ...gethPayload } = geth.result.executionPayload;
      expect(shape(payload)).toEqual(shape(gethPayload));
      expect(transactions.length).toBeGreaterThanOrEqual(recorded.length);
      expect(transactions).toContain(recorded[0]);
    },
  },
  'eth_simulateV1/ethSimulate-blobs.io': {
    why: 'blob calls are not simulated (Linea takes no blob transactions): blobBaseFee is refused as an unknown override',
    check(ours) {
      expect(ours.error).toMatchObject({ code: -32602 });
      expect(ours.error.message).toContain('blockOverrides.blobBaseFee) must be absent');
    },
  },
};

/** Fields the node adds to geth's answers (the prover's line counts of simulated calls). */
const EXTENSIONS = new Set(['lineCounts', 'wouldBeExcluded']);

function withoutExtensions(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutExtensions);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !EXTENSIONS.has(k))
        .map(([k, x]) => [k, withoutExtensions(x)]),
    );
  return v;
}

/**
 * The shape of `v` for a speconly comparison: objects by their keys (an object keyed by addresses, as
 * txpool_content's, by one entry), values by their JSON type, arrays element by element.
 */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length > 0 && entries.every(([k]) => /^0x[0-9a-fA-F]{40}$/.test(k)))
      return { '<address>': shape(entries[0][1]) };
    return Object.fromEntries(entries.map(([k, x]) => [k, shape(x)]));
  }
  return v === null ? null : typeof v;
}

interface Vector {
  name: string;
  speconly: boolean;
  exchanges: { request: any; response: any }[];
}

function vectors(): Vector[] {
  const out: Vector[] = [];
  for (const method of readdirSync(DIR)
    .filter((d) => !d.includes('.') && d !== 'LICENSE')
    .sort()) {
    for (const file of readdirSync(join(DIR, method)).sort()) {
      const text = readFileSync(join(DIR, method, file), 'utf8');
      const lines = text.split('\n');
      const exchanges = [];
      for (let i = 0; i < lines.length; i++)
        if (lines[i].startsWith('>> '))
          exchanges.push({ request: JSON.parse(lines[i].slice(3)), response: JSON.parse(lines[i + 1].slice(3)) });
      out.push({ name: `${method}/${file}`, speconly: text.includes('speconly'), exchanges });
    }
  }
  return out;
}

const all = vectors();

test('the vectors are all there', () => {
  expect(all.length).toBeGreaterThan(200);
});

/**
 * Both engines, a node each: the node's own (the default) and ethereumjs (`--engine ethereumjs`),
 * the reference it is held to. Each answers every vector as geth, so the two agree on the chain's
 * import (its state roots, receipts and blocks) and on every recorded request.
 */
describe.each(['l2devnet', 'ethereumjs'] as const)('on the %s engine', (engine) => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({
      chain: {
        genesis: JSON.parse(readFileSync(join(DIR, 'genesis.json'), 'utf8')),
        mining: { mode: 'manual' },
        rpcGasCap: GETH_RPC_GAS_CAP,
        // headfcu.json: the head is safe and finalized.
        safeDepth: 0n,
        finalizedDepth: 0n,
        // The cases check answers, not the execution timeout: ethSimulate-run-gas-spending runs about 2 s
        // alone and has gone past the default 5 s on a loaded two-core machine.
        rpcEvmTimeoutMs: 30_000,
        engine,
      },
    });
    const imported = await node.chain.imports.importBlocks(new Uint8Array(readFileSync(join(DIR, 'chain.rlp'))));
    expect(imported.imported).toBe(54);
    node.chain.gasLimit = GETH_NEXT_GAS_LIMIT;
  });
  afterAll(() => node.close());

  test(`calls run on ${engine === 'l2devnet' ? "the node's engine" : "ethereumjs's interpreter"}`, async () => {
    const frames = await ethereumjsFrames(async () => {
      const { json } = await node.post({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: CALLED, data: '0x' }, 'latest'],
      });
      expect(json.error).toBeUndefined();
    });
    expect(frames > 0).toBe(engine === 'ethereumjs');
  });

  // One node for all, in the vectors' order, as the specification's runner does: eth_sendRawTransaction's
  // vectors leave transactions in the pool that txpool_* and testing_buildBlockV1 see.
  test.each(all.map((v) => [v.name, v] as const))('%s answers as geth', async (name, vector) => {
    const deviation = DEVIATIONS[name];
    for (const { request, response } of vector.exchanges) {
      const { json } = await node.post(request);
      const ours = withoutExtensions(json) as any;
      if (deviation !== undefined && JSON.stringify(ours) !== JSON.stringify(response)) {
        deviation.check(ours, response);
        return;
      }
      if (vector.speconly) expect(shape(ours)).toEqual(shape(response));
      else expect(ours).toEqual(response);
    }
  });
});
