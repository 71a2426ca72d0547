/**
 * The node's own engine against ethereumjs, the reference it is held to: two chains in one process,
 * one on each engine (`engine: 'l2devnet'` and `'ethereumjs'`), sent the same requests; every answer
 * must be the same. For every hardfork the node supports, PROGRAMS seeded random programs
 * (programs.ts) run as calls (eth_call of the program as a creation, and calls into a store whose
 * slots earlier blocks wrote) and as transactions of each type the fork has, PER_BLOCK to a block
 * (on the node's engine whole, without ethereumjs's runTx): return data and errors,
 * receipts (status, gas, logs, created contracts, which later programs call), every block (state,
 * receipts and transactions roots, bloom, gas), and traces of blocks and calls by every tracer (on
 * the node's engine, through its hooks). A difference fails with the request that shows it.
 *
 * fastPath.test.ts puts fewer programs through every method (estimates, access lists, simulations,
 * line counts, the call workers) against ethereumjs as published.
 */
import { createBlob4844Tx, createEOACode7702Tx, createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, eoaCode7702SignAuthorization, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { Chain, NodeClock } from '@l2devnet/core';

import { ethereumjsFrames, ethereumjsTransactions } from '../../core/test/ethereumjsFrames';
import { prng } from '../../core/test/prng';
import { createRpc } from '../src';
import { KV_STORE, program } from './programs';

const SEED = Number(process.env.ENGINES_SEED ?? 20261128);
const FORKS = ['spuriousDragon', 'byzantium', 'istanbul', 'berlin', 'london', 'shanghai', 'cancun', 'prague', 'osaka'];
const PROGRAMS = Number(process.env.ENGINES_PROGRAMS ?? 2000);
const PER_BLOCK = 50;
const ENGINES = ['l2devnet', 'ethereumjs'] as const;
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const PROGRAM_GAS = '0x30d40'; // 200,000: loops end soon
const GAS_PRICE = '0x174876e800'; // 100 gwei, above any base fee these chains reach
/** Creates a contract whose code self-destructs to its caller (CALLER SELFDESTRUCT). */
const SELF_DESTRUCTING = '0x6002600c60003960026000f333ff';
/** The addresses programs call (pushed as operands): at most this many, the newest contracts replacing older ones. */
const MAX_ADDRESSES = 48;

/**
 * Every tracer but the struct logger, in one run: the frames with their logs, Parity's flat traces,
 * selectors, the state before and after, line counts.
 */
const TRACERS = {
  callTracer: { withLog: true },
  flatCallTracer: {},
  '4byteTracer': {},
  prestateTracer: { diffMode: true },
  lineCountTracer: {},
};
/** The struct logger with everything it can show (memory and return data too), for half the traced calls (every fourth block has it with its defaults). */
const STEPS = { enableMemory: true, enableReturnData: true };
/** One program's call in this many is traced as well (debug_traceCall). */
const TRACED_CALLS = 16;

const word = (n: number) => n.toString(16).padStart(64, '0');

type Node = { chain: Chain; rpc: ReturnType<typeof createRpc> };

/** A fork's run is many blocks and calls on two nodes: minutes on a slow machine, past jest's default limit. */
const FORK_TIMEOUT_MS = 300_000;

/**
 * A chain on each engine (the node's first), with the same options: `ask` sends one of them a
 * request, `both` sends the same to both and fails, `label` first, where their answers differ.
 */
async function twoNodes(label: string, opts: Parameters<typeof Chain.create>[0]) {
  const nodes: Node[] = await Promise.all(
    ENGINES.map(async (engine) => {
      const chain = await Chain.create({
        ...opts,
        engine,
        clock: new NodeClock(() => 1_750_000_000_000),
        mining: { mode: 'manual' },
      });
      return { chain, rpc: createRpc(chain, { logError: () => undefined }) };
    }),
  );
  let id = 1;
  const ask = async (node: Node, method: string, params: unknown[]) => {
    const r = (await node.rpc.handle({ jsonrpc: '2.0', id: id++, method, params })) as Record<string, unknown>;
    return 'error' in r ? { error: r.error } : r.result;
  };
  /** The same request to both chains: their answers must be the same. */
  const both = async (method: string, ...params: unknown[]): Promise<any> => {
    const [ours, reference] = [await ask(nodes[0], method, params), await ask(nodes[1], method, params)];
    if (JSON.stringify(ours) !== JSON.stringify(reference)) {
      // A blob transaction's network form is 128 KiB of hex: the request is cut there.
      const request = JSON.stringify({ method, params }).slice(0, 10_000);
      throw new Error(
        `${label}, ${request}:\nl2devnet   ${JSON.stringify(ours)}\nethereumjs ${JSON.stringify(reference)}`,
      );
    }
    return ours;
  };
  const close = async () => {
    for (const node of nodes) {
      node.rpc.close();
      await node.chain.close();
    }
  };
  return { nodes, ask, both, close };
}

describe.each(FORKS)('%s', (fork) => {
  test(
    `${PROGRAMS} random programs, as calls and as transactions, answer alike on both engines`,
    async () => {
      const seed = SEED + FORKS.indexOf(fork);
      const { nodes, ask, both, close } = await twoNodes(`seed ${seed}, ${fork}`, { hardfork: fork });
      try {
        // Each chain runs calls where it says: the node's engine runs no ethereumjs interpreter, the other does.
        const frames = [];
        for (const node of nodes)
          frames.push(
            await ethereumjsFrames(() => ask(node, 'eth_call', [{ from: ALICE, data: '0x600160015500' }, 'latest'])),
          );
        expect(frames[0]).toBe(0);
        expect(frames[1]).toBeGreaterThan(0);
        // ... and transactions: the node's engine without ethereumjs's runTx (in the block and in the
        // line check before it), the other with it. Before Byzantium (a receipt holds the state root
        // after its transaction) runTx runs them on both.
        const runTxs = [];
        for (const node of nodes)
          runTxs.push(
            await ethereumjsTransactions(async () => {
              await ask(node, 'eth_sendTransaction', [{ from: ALICE, to: ALICE, value: '0x1' }]);
              await ask(node, 'evm_mine', []);
            }),
          );
        if (fork === 'spuriousDragon') expect(runTxs[0]).toBe(runTxs[1]);
        else expect(runTxs[0]).toBe(0);
        expect(runTxs[1]).toBeGreaterThan(0);
        // ... and traces, with every tracer.
        for (const tracer of [{ tracer: 'muxTracer', tracerConfig: TRACERS }, {}]) {
          const traced = [];
          for (const node of nodes)
            traced.push(await ethereumjsTransactions(() => ask(node, 'debug_traceBlockByNumber', ['latest', tracer])));
          if (fork === 'spuriousDragon') expect(traced[0]).toBe(traced[1]);
          else expect(traced[0]).toBe(0);
          expect(traced[1]).toBeGreaterThan(0);
        }

        const kvHash = await both('eth_sendTransaction', { from: ALICE, data: KV_STORE, gas: PROGRAM_GAS });
        const doomedHash = await both('eth_sendTransaction', { from: ALICE, data: SELF_DESTRUCTING, gas: PROGRAM_GAS });
        await both('evm_mine');
        const kv = (await both('eth_getTransactionReceipt', kvHash)).contractAddress as string;
        const doomed = (await both('eth_getTransactionReceipt', doomedHash)).contractAddress as string;
        // What random programs seldom meet, in a block of its own: each is a receipt and the block's
        // state root on both engines.
        const edges = [
          // A slot set and cleared: a refund over the cap (maxRefundQuotient) since London.
          { data: '0x600160005560006000556000', gas: PROGRAM_GAS },
          // A creation that self-destructs: its account goes.
          { data: '0x33ff', gas: PROGRAM_GAS },
          // A contract of an earlier transaction self-destructs: it goes before Cancun, keeps its code after (EIP-6780).
          { to: doomed, value: '0x5', gas: PROGRAM_GAS },
          // Calldata and nothing run: the EIP-7623 floor from Prague on.
          { to: `0x${'ab'.repeat(20)}`, data: `0x${'ff'.repeat(1000)}`, gas: '0x186a0' },
          // Nothing sent to an account that does not exist (EIP-161: touched, still none).
          { to: `0x${'cd'.repeat(20)}`, gas: PROGRAM_GAS },
        ];
        const edgeHashes = [];
        for (const tx of edges) edgeHashes.push(await both('eth_sendTransaction', { from: ALICE, ...tx }));
        await both('evm_mine');
        await both('eth_getBlockByNumber', 'latest', false);
        for (const h of edgeHashes) expect((await both('eth_getTransactionReceipt', h)).transactionHash).toBe(h);
        await both('eth_getCode', doomed, 'latest');
        await both('eth_getBalance', doomed, 'latest');
        const bytesOf = (address: string) => Array.from(Buffer.from(address.slice(2), 'hex'));
        const addresses: number[][] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x0b, 0x11, 0x100].map((n) => [n >> 8, n & 0xff]);
        addresses.push(bytesOf(ALICE), bytesOf(kv));
        const rand = prng(seed);
        const seen = { succeeded: 0, failed: 0, logged: 0, created: 0 };
        let pending: string[] = [];
        // Transactions of each type the fork has: the default (EIP-1559 from London on), legacy with a
        // gas price (its tip the whole price over the base fee), EIP-2930 with an access list.
        const accessLists = FORKS.indexOf(fork) >= FORKS.indexOf('berlin');
        const kind = (i: number) =>
          i % 3 === 1
            ? { gasPrice: GAS_PRICE }
            : i % 3 === 2 && accessLists
              ? { type: '0x1', gasPrice: GAS_PRICE, accessList: [{ address: kv, storageKeys: [`0x${word(i % 7)}`] }] }
              : {};
        for (let i = 0; i < PROGRAMS; i++) {
          const code = program(rand, addresses, i % 256);
          await both('eth_call', { from: ALICE, data: code, gas: PROGRAM_GAS }, 'latest');
          if (i % TRACED_CALLS === 0) {
            await both('debug_traceCall', { from: ALICE, data: code, gas: PROGRAM_GAS }, 'latest', {
              tracer: 'muxTracer',
              tracerConfig: TRACERS,
            });
            if (i % (2 * TRACED_CALLS) === 0)
              await both('debug_traceCall', { from: ALICE, data: code, gas: PROGRAM_GAS }, 'latest', STEPS);
          }
          const hash = await both('eth_sendTransaction', { from: ALICE, data: code, gas: PROGRAM_GAS, ...kind(i) });
          if (typeof hash === 'string') pending.push(hash);
          // The store: a write sent now, a read of what earlier blocks wrote.
          if (i % 8 === 0) {
            await both('eth_sendTransaction', {
              from: ALICE,
              to: kv,
              data: `0x${word(i % 7)}${word(i)}`,
              ...kind(i + 1),
            });
            await both('eth_call', { from: ALICE, to: kv, data: `0x${word(i % 5)}` }, 'latest');
          }
          if ((i + 1) % PER_BLOCK !== 0 && i !== PROGRAMS - 1) continue;
          await both('evm_mine');
          await both('eth_getBlockByNumber', 'latest', false);
          // Every other block traced: on the node's engine through its hooks, on the other through ethereumjs's events.
          if ((i + 1) % (2 * PER_BLOCK) === 0) {
            await both('debug_traceBlockByNumber', 'latest', { tracer: 'muxTracer', tracerConfig: TRACERS });
            if ((i + 1) % (4 * PER_BLOCK) === 0) await both('debug_traceBlockByNumber', 'latest', {});
          }
          for (const h of pending) {
            const receipt = await both('eth_getTransactionReceipt', h);
            if (receipt === null) continue;
            // Before Byzantium a receipt has the state root after its transaction instead of a status.
            if (receipt.status === '0x0') seen.failed++;
            else seen.succeeded++;
            if (receipt.logs.length > 0) seen.logged++;
            if (typeof receipt.contractAddress === 'string') {
              seen.created++;
              addresses.push(bytesOf(receipt.contractAddress));
              if (addresses.length > MAX_ADDRESSES) addresses.splice(15, 1);
            }
          }
          pending = [];
        }
        // The programs did run: some succeeded, some failed, some logged, some left contracts behind (the
        // older the fork, the more of them meet an opcode it does not have).
        expect(seen.succeeded).toBeGreaterThan(PROGRAMS / 20);
        if (fork !== 'spuriousDragon') expect(seen.failed).toBeGreaterThan(PROGRAMS / 20);
        expect(seen.logged).toBeGreaterThan(0);
        expect(seen.created).toBeGreaterThan(0);
      } finally {
        await close();
      }
    },
    FORK_TIMEOUT_MS,
  );
});

/**
 * Blob and EIP-7702 transactions, which the node's engine also takes whole: the same signed
 * transactions to both chains (the sequencer's rules off, which refuse blobs), every block, receipt,
 * trace and authority's account alike, and none of them on ethereumjs's runTx on the node's engine.
 */
describe.each(['cancun', 'prague', 'osaka'])('%s: blob and EIP-7702 transactions', (fork) => {
  test(
    'answer alike on both engines, run whole on the node engine',
    async () => {
      // The sequencer's rules off: Linea's refuse blob transactions.
      const { nodes, ask, both, close } = await twoNodes(fork, { hardfork: fork, sequencerRules: false });
      const { common, accounts } = nodes[0].chain;
      const [alice, bob, carol] = accounts;
      const nonces = new Map<string, bigint>();
      const nonceOf = (key: Uint8Array) => {
        const k = bytesToHex(key);
        const n = nonces.get(k) ?? 0n;
        nonces.set(k, n + 1n);
        return n;
      };
      const fees = { maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, chainId: common.chainId() };
      const authorize = (key: Uint8Array, address: string, nonce: bigint, chainId = common.chainId()) =>
        eoaCode7702SignAuthorization(
          { chainId: `0x${chainId.toString(16)}`, address: address as `0x${string}`, nonce: `0x${nonce.toString(16)}` },
          key,
        );
      const send = async (raw: Uint8Array) => both('eth_sendRawTransaction', bytesToHex(raw));
      /** Mines what was sent: the block, its receipts and traces alike; none on runTx on the node's engine. */
      const mine = async (hashes: string[]) => {
        const runTxs = await ethereumjsTransactions(() => ask(nodes[0], 'evm_mine', []));
        await ask(nodes[1], 'evm_mine', []);
        expect(runTxs).toBe(0);
        await both('eth_getBlockByNumber', 'latest', true);
        const receipts = [];
        for (const h of hashes) receipts.push(await both('eth_getTransactionReceipt', h));
        await both('debug_traceBlockByNumber', 'latest', { tracer: 'muxTracer', tracerConfig: TRACERS });
        await both('debug_traceBlockByNumber', 'latest', {});
        return receipts;
      };
      try {
        // A store (KV_STORE); a contract that keeps what a blob transaction shows it (BLOBHASH 0 and 1
        // and BLOBBASEFEE in slots 0, 1, 2); one that reads the balances of the two addresses it is
        // sent, paying for each what EIP-2929 asks (cold or warm).
        const reader = '0x600d600c600039600d6000f3' + '600049600055600149600155' + '4a600255' + '00';
        const prober = '0x600b600c600039600b6000f3' + '6000353150' + '6020353150' + '00';
        const deploy = (code: string) =>
          send(
            createFeeMarket1559Tx(
              { ...fees, nonce: nonceOf(alice.privateKey), data: hexToBytes(code), gasLimit: 200_000n },
              { common },
            )
              .sign(alice.privateKey)
              .serialize(),
          );
        const deployed = await mine([await deploy(KV_STORE), await deploy(reader), await deploy(prober)]);
        const [kv, readerAddress, proberAddress] = deployed.map((r) => r.contractAddress as string);

        // A blob transaction to the reader: its blob gas bought and in its receipt.
        const blob = createBlob4844Tx(
          {
            ...fees,
            nonce: nonceOf(alice.privateKey),
            to: readerAddress,
            blobsData: ['l2devnet'],
            maxFeePerBlobGas: 10n,
            gasLimit: 200_000n,
          },
          { common },
        ).sign(alice.privateKey);
        const [blobReceipt] = await mine([await send(blob.serializeNetworkWrapper())]);
        expect(blobReceipt).toMatchObject({ status: '0x1', blobGasUsed: '0x20000' });
        for (const slot of ['0x0', '0x1', '0x2']) await both('eth_getStorageAt', readerAddress, slot, 'latest');
        expect(await both('eth_getStorageAt', readerAddress, '0x0', 'latest')).toBe(blob.blobVersionedHashes[0]);
        await both('eth_getBalance', bytesToHex(alice.address), 'latest');
        if (fork === 'cancun') return;

        // EIP-7702: authorizations that hold (an account that exists, so refunded; one that does not;
        // one for any chain; the same authority twice) and ones skipped (another chain, a nonce not
        // the account's), in one transaction to the prober, which reads the balance of an authority
        // whose authorization held and of one whose authorization was skipped (warm both).
        const fresh = new Uint8Array(32).fill(7);
        const freshAddress = bytesToHex(privateToAddress(fresh));
        const dave = accounts[3];
        const wordOf = (address: string) => address.slice(2).padStart(64, '0');
        const writeSlot = (slot: number, value: number) => hexToBytes(`0x${word(slot)}${word(value)}`);
        const bobNonce = 0n;
        const list = [
          authorize(bob.privateKey, kv, bobNonce),
          authorize(fresh, kv, 0n),
          authorize(carol.privateKey, kv, 0n, 0n),
          authorize(bob.privateKey, readerAddress, bobNonce + 1n),
          authorize(dave.privateKey, kv, 5n),
          authorize(carol.privateKey, kv, 1n, 999n),
        ];
        const delegating = createEOACode7702Tx(
          {
            ...fees,
            nonce: nonceOf(alice.privateKey),
            to: proberAddress,
            data: hexToBytes(`0x${wordOf(freshAddress)}${wordOf(bytesToHex(dave.address))}`),
            gasLimit: 300_000n,
            authorizationList: list,
          },
          { common },
        ).sign(alice.privateKey);
        nonces.set(bytesToHex(bob.privateKey), bobNonce + 2n);
        nonces.set(bytesToHex(carol.privateKey), 1n);
        const [delegated] = await mine([await send(delegating.serialize())]);
        expect(delegated.status).toBe('0x1');
        for (const a of [bytesToHex(bob.address), bytesToHex(carol.address), bytesToHex(dave.address), freshAddress]) {
          await both('eth_getCode', a, 'latest');
          await both('eth_getTransactionCount', a, 'latest');
          await both('eth_getBalance', a, 'latest');
        }
        expect(await both('eth_getCode', bytesToHex(carol.address), 'latest')).toBe(`0xef0100${kv.slice(2)}`);
        expect(await both('eth_getCode', bytesToHex(dave.address), 'latest')).toBe('0x');
        // Calls into a delegated account run its delegate's code there; EXTCODESIZE, EXTCODEHASH and
        // EXTCODECOPY of it read the delegation itself (EIP-7702).
        const carolHex = bytesToHex(carol.address);
        const call = { from: bytesToHex(alice.address), to: carolHex, data: `0x${word(6)}${word(12)}` };
        await both('eth_call', call, 'latest');
        await both('eth_estimateGas', call, 'latest');
        await both('eth_createAccessList', call, 'latest');
        await both('debug_traceCall', call, 'latest', { tracer: 'muxTracer', tracerConfig: TRACERS });
        await both('debug_traceCall', call, 'latest', STEPS);
        const push = `73${carolHex.slice(2)}`;
        // EXTCODESIZE, EXTCODEHASH to memory 0 and 32, its code to 64 (23 bytes), 96 bytes returned.
        const inspect = `0x${push}3b600052${push}3f602052${push}60176000604083${'3c'}50${'60606000f3'}`;
        const seen = await both('eth_call', { from: bytesToHex(alice.address), data: inspect }, 'latest');
        expect(seen.slice(2, 66)).toBe(word(23));

        // A delegated account sends (EIP-3607 as EIP-7702 amends it), a self-sponsored authorization
        // (its nonce one past the transaction's), a call into a delegated account, and a delegation cleared.
        const bobSends = createFeeMarket1559Tx(
          {
            ...fees,
            nonce: nonceOf(bob.privateKey),
            to: bytesToHex(carol.address),
            data: writeSlot(4, 10),
            gasLimit: 100_000n,
          },
          { common },
        ).sign(bob.privateKey);
        const carolNonce = nonceOf(carol.privateKey);
        const selfSponsored = createEOACode7702Tx(
          {
            ...fees,
            nonce: carolNonce,
            to: bytesToHex(carol.address),
            data: writeSlot(5, 11),
            gasLimit: 300_000n,
            authorizationList: [authorize(carol.privateKey, readerAddress, carolNonce + 1n)],
          },
          { common },
        ).sign(carol.privateKey);
        nonceOf(carol.privateKey);
        const hashes = [await send(bobSends.serialize()), await send(selfSponsored.serialize())];
        const [bobReceipt, selfReceipt] = await mine(hashes);
        expect(bobReceipt.status).toBe('0x1');
        expect(await both('eth_getStorageAt', bytesToHex(carol.address), '0x4', 'latest')).toBe(`0x${word(10)}`);
        expect(selfReceipt.status).toBe('0x1');
        expect(await both('eth_getCode', bytesToHex(carol.address), 'latest')).toBe(
          `0xef0100${readerAddress.slice(2)}`,
        );
        const clearing = createEOACode7702Tx(
          {
            ...fees,
            nonce: nonceOf(alice.privateKey),
            to: bytesToHex(bob.address),
            gasLimit: 100_000n,
            authorizationList: [authorize(bob.privateKey, `0x${'00'.repeat(20)}`, nonceOf(bob.privateKey))],
          },
          { common },
        ).sign(alice.privateKey);
        await mine([await send(clearing.serialize())]);
        expect(await both('eth_getCode', bytesToHex(bob.address), 'latest')).toBe('0x');
        for (const a of [bytesToHex(alice.address), bytesToHex(bob.address), bytesToHex(carol.address)]) {
          await both('eth_getTransactionCount', a, 'latest');
          await both('eth_getBalance', a, 'latest');
        }
      } finally {
        await close();
      }
    },
    FORK_TIMEOUT_MS,
  );
});
