/**
 * Devnet control: the evm_*, anvil_*, hardhat_* and txpool_* methods test suites script against
 * (viem's test client in anvil mode, Hardhat network helpers, ethers). Each `hardhat_` name is an
 * alias of its `anvil_` twin.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import type { PoolTx } from '@l2devnet/core';
import { InvalidArgumentError, UnknownAccountError } from '@l2devnet/core';

import { invalidParams } from '../errors';
import { formatTransaction, hex, quantity } from '../format';
import type { Method, RpcContext } from '../method';
import { method, optional, required, withDefault } from '../method';
import type { ParamSlot } from '../params';
import { address, bool, callObject, count, data, fail, finality, hash, quantity as quantityParam } from '../params';

/** A number of seconds or blocks given as a JSON number or a hex quantity. */
const amount = (value: unknown, slot: ParamSlot): bigint => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string') return quantityParam(value, slot);
  return fail(slot, 'a non-negative integer or hex quantity', value);
};

/** `amount`, below `limit`: the message names the bound and why it is there. */
function amountBelow(limit: bigint, bound: string): (value: unknown, slot: ParamSlot) => bigint {
  return (value, slot) => {
    const n = amount(value, slot);
    return n < limit ? n : fail(slot, `below ${bound}`, value);
  };
}

/** A block timestamp: the header field is a uint64. */
const timestamp = amountBelow(1n << 64n, '2^64 (a block timestamp is a uint64)');
/** EIP-2681: an account nonce stays below 2^64-1. */
const nonce = amountBelow((1n << 64n) - 1n, '2^64-1 (EIP-2681)');
/** EIP-1985: a block gas limit is at most 2^63-1. */
const gasLimit = amountBelow(1n << 63n, '2^63 (EIP-1985: at most 2^63-1)');
/** The node clock counts milliseconds in a double: it holds times up to 2^53 ms (about the year 287,000). */
const MAX_CLOCK_MS = BigInt(Number.MAX_SAFE_INTEGER);

/** Node time (ms) `seconds` after `from` (ms); refused past the clock's range. */
function clockAfter(seconds: bigint, name: string, from: bigint): number {
  const ms = from + seconds * 1000n;
  if (ms > MAX_CLOCK_MS)
    throw invalidParams(`param 1 (${name}) must keep node time below 2^53 ms (the clock's range); got ${seconds}`);
  return Number(ms);
}

/** evm_mine's optional param: a timestamp, or `{ timestamp, blocks }`. */
const mineOptions = (value: unknown, slot: ParamSlot): { timestamp?: bigint; blocks?: bigint } => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    return {
      timestamp:
        o.timestamp === undefined ? undefined : timestamp(o.timestamp, { ...slot, name: `${slot.name}.timestamp` }),
      blocks: o.blocks === undefined ? undefined : amount(o.blocks, { ...slot, name: `${slot.name}.blocks` }),
    };
  }
  return { timestamp: timestamp(value, slot) };
};

/** A 32-byte word given as any hex quantity (storage values). */
const word = (value: unknown, slot: ParamSlot): Uint8Array => {
  const n = quantityParam(value, slot);
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
};

async function mineBlocks(ctx: RpcContext, blocks: bigint, interval: bigint, timestamp?: bigint): Promise<void> {
  if (blocks > 100_000n) throw invalidParams(`at most 100000 blocks can be mined at once; asked for ${blocks}`);
  // The first block at `timestamp` (if given), each next one `interval` seconds later (or at the
  // usual next timestamp when there is no interval).
  let ts = timestamp;
  for (let i = 0n; i < blocks; i++) {
    const block = await ctx.chain.mine({ timestamp: ts });
    ts = interval > 0n ? block.header.timestamp + interval : undefined;
    if (ts !== undefined && ts >= 1n << 64n)
      throw invalidParams(`param 2 (interval) must keep block timestamps below 2^64 (a uint64); got ${interval}`);
  }
}

/** txpool_content / txpool_inspect layout: { pending, queued } by sender, then by nonce. */
function poolContent(ready: PoolTx[], queued: PoolTx[], shape: (p: PoolTx) => unknown) {
  const group = (list: PoolTx[]) => {
    const out: Record<string, Record<string, unknown>> = {};
    for (const p of list) {
      const sender = bytesToHex(p.sender);
      (out[sender] ??= {})[p.nonce.toString()] = shape(p);
    }
    return out;
  };
  return { pending: group(ready), queued: group(queued) };
}

async function partitionPool(ctx: RpcContext) {
  return ctx.chain.pool.partition(async (sender) => (await ctx.chain.getAccount(sender, ctx.chain.headNumber)).nonce);
}

const automine = (ctx: RpcContext) => ctx.chain.mining.mode === 'auto';

const setAutomine = method([required('enabled', bool)], ({ chain }, enabled) => {
  chain.setMining(enabled ? { mode: 'auto' } : { mode: 'manual' });
  return null;
});

/** A transaction to put into a reorganised block: raw signed bytes or a request from a dev/impersonated account. */
async function reorgTx(
  ctx: RpcContext,
  value: unknown,
  position: number,
  nextNonce: (from: Uint8Array) => Promise<bigint>,
): Promise<{ tx: TypedTransaction; sender: Uint8Array }> {
  const slot = { position: 2, name: `transactions[${position}][0]` };
  if (typeof value === 'string') {
    const tx = ctx.chain.decodeTransaction(data(value, slot));
    return { tx, sender: ctx.chain.recoverSender(tx) };
  }
  const req = callObject({ requireFrom: true })(value, slot);
  const from = req.from as Uint8Array;
  const unsigned = createFeeMarket1559Tx(
    {
      nonce: req.nonce ?? (await nextNonce(from)),
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
      gasLimit: req.gas ?? 1_000_000n,
      maxFeePerGas: req.maxFeePerGas ?? 100_000_000_000n,
      maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 1_000_000_000n,
    },
    { common: ctx.chain.common },
  );
  const tx = ctx.chain.signAs(unsigned, from);
  if (tx === undefined) throw new UnknownAccountError(from);
  return { tx, sender: from };
}

const aliases: Record<string, Method> = {
  setBalance: method([required('address', address), required('balance', quantityParam)], async ({ chain }, a, v) => {
    await chain.setAccount(a, { balance: v });
    return null;
  }),
  setCode: method([required('address', address), required('code', data)], async ({ chain }, a, code) => {
    await chain.setCode(a, code);
    return null;
  }),
  setNonce: method([required('address', address), required('nonce', nonce)], async ({ chain }, a, n) => {
    await chain.setAccount(a, { nonce: n });
    return null;
  }),
  setStorageAt: method(
    [required('address', address), required('slot', word), required('value', word)],
    async ({ chain }, a, slot, v) => {
      await chain.setStorageAt(a, slot, v);
      return true;
    },
  ),
  impersonateAccount: method([required('address', address)], ({ chain }, a) => {
    chain.impersonated.add(bytesToHex(a));
    return null;
  }),
  stopImpersonatingAccount: method([required('address', address)], ({ chain }, a) => {
    chain.impersonated.delete(bytesToHex(a));
    return null;
  }),
  mine: method(
    [withDefault('blocks', amount, () => 1n), withDefault('interval', timestamp, () => 0n)],
    async (ctx, blocks, interval) => {
      await mineBlocks(ctx, blocks, interval);
      return null;
    },
  ),
  setCoinbase: method([required('address', address)], ({ chain }, a) => {
    chain.coinbase = a;
    return null;
  }),
  setNextBlockBaseFeePerGas: method([required('baseFee', quantityParam)], async ({ chain }, fee) => {
    await chain.setNextBlockBaseFee(fee);
    return null;
  }),
  setMinGasPrice: method([required('gasPrice', quantityParam)], ({ chain }, price) => {
    chain.minGasPrice = price;
    return null;
  }),
  dropTransaction: method([required('transactionHash', hash)], async ({ chain }, h) =>
    (await chain.dropTransaction(h)) ? hex(h) : null,
  ),
};

export const devnetMethods: Record<string, Method> = {
  // --- mining
  /** evm_mine: one block, optionally at a timestamp; or `{ blocks, timestamp }`. */
  evm_mine: method([optional('options', mineOptions)], async (ctx, opts) => {
    await mineBlocks(ctx, opts?.blocks ?? 1n, 0n, opts?.timestamp);
    return '0x0';
  }),
  evm_setAutomine: setAutomine,
  anvil_setAutomine: setAutomine,
  anvil_getAutomine: method([], automine),
  hardhat_getAutomine: method([], automine),
  /** evm_setIntervalMining: milliseconds between blocks; 0 turns interval mining off (manual). */
  evm_setIntervalMining: method([required('intervalMs', count)], ({ chain }, ms) => {
    chain.setMining(ms === 0 ? { mode: 'manual' } : { mode: 'interval', intervalMs: ms });
    return null;
  }),
  /** anvil_setIntervalMining: seconds between blocks. */
  anvil_setIntervalMining: method([required('seconds', count)], ({ chain }, s) => {
    chain.setMining(s === 0 ? { mode: 'manual' } : { mode: 'interval', intervalMs: s * 1000 });
    return null;
  }),

  // --- time
  /** evm_increaseTime: moves the node clock forward; returns the total offset in seconds. */
  evm_increaseTime: method([required('seconds', amount)], ({ chain }, seconds) => {
    chain.clock.set(clockAfter(seconds, 'seconds', BigInt(chain.clock.now())));
    return quantity(BigInt(Math.max(0, Math.round(chain.clock.offset / 1000))));
  }),
  evm_setNextBlockTimestamp: method([required('timestamp', timestamp)], async ({ chain }, ts) => {
    await chain.setNextBlockTimestamp(ts);
    return null;
  }),
  /** anvil_setTime: sets the node clock; returns the offset from the wall clock in seconds. */
  anvil_setTime: method([required('timestamp', amount)], ({ chain }, ts) => {
    chain.clock.set(clockAfter(ts, 'timestamp', 0n));
    return quantity(BigInt(Math.max(0, Math.round(chain.clock.offset / 1000))));
  }),

  // --- snapshots
  evm_snapshot: method([], async ({ chain }) => quantity(await chain.snapshot())),
  evm_revert: method([required('snapshotId', quantityParam)], ({ chain }, id) => chain.revertTo(id)),

  // --- chain
  /** anvil_rollback: drops the last `depth` blocks (default 1). */
  anvil_rollback: method([withDefault('depth', amount, () => 1n)], async ({ chain }, depth) => {
    await chain.rollback(depth);
    return null;
  }),
  /**
   * l2_setFinality({ safe, finalized }): the blocks `safe` and `finalized` stand for from now on
   * (finalized ≤ safe ≤ head), as a following node hears them from its consensus client; null goes
   * back to depths behind the head. An import sets both to its tip.
   */
  l2_setFinality: method([required('finality', finality)], async ({ chain }, f) => {
    await chain.setFinality(f ?? undefined);
    return true;
  }),
  /** anvil_reorg(depth, [[transaction, blockOffset], ...]): replaces the last `depth` blocks. */
  anvil_reorg: method(
    [
      required('depth', amount),
      withDefault(
        'transactions',
        (v, slot) => (Array.isArray(v) ? v : fail(slot, 'an array', v)),
        () => [],
      ),
    ],
    async (ctx, depth, list) => {
      const txs = [];
      // Request-form transactions without a nonce take their sender's next one on the new branch.
      const base = ctx.chain.headNumber - depth;
      const used = new Map<string, bigint>();
      const nextNonce = async (from: Uint8Array) => {
        const k = bytesToHex(from);
        const n = used.get(k) ?? (base >= 0n ? (await ctx.chain.getAccount(from, base)).nonce : 0n);
        used.set(k, n + 1n);
        return n;
      };
      for (const [i, entry] of (list as unknown[]).entries()) {
        if (!Array.isArray(entry) || entry.length !== 2)
          fail({ position: 2, name: `transactions[${i}]` }, '[transaction, blockOffset]', entry);
        const [raw, offset] = entry as [unknown, unknown];
        const block = Number(amount(offset, { position: 2, name: `transactions[${i}][1]` }));
        if (BigInt(block) >= depth)
          throw new InvalidArgumentError(`transactions[${i}] goes into block ${block} of a ${depth}-block reorg`);
        txs.push({ ...(await reorgTx(ctx, raw, i, nextNonce)), block });
      }
      await ctx.chain.reorg(depth, txs);
      return null;
    },
  ),

  // --- accounts and block configuration
  ...Object.fromEntries(
    Object.entries(aliases).flatMap(([name, m]) => [
      [`anvil_${name}`, m],
      [`hardhat_${name}`, m],
    ]),
  ),
  evm_setBlockGasLimit: method([required('gasLimit', gasLimit)], ({ chain }, limit) => {
    if (limit < 21_000n) throw invalidParams(`param 1 (gasLimit) must be at least 21000; got ${limit}`);
    chain.gasLimit = limit;
    return true;
  }),
  evm_setAccountNonce: aliases.setNonce,

  // --- state
  /** anvil_dumpState: the whole head state as a hex blob. */
  anvil_dumpState: method([], async ({ chain }) => hex(await chain.dumpState())),
  /** anvil_loadState: merges a blob from anvil_dumpState into the head state, as Anvil does. */
  anvil_loadState: method([required('state', data)], async ({ chain }, blob) => {
    await chain.loadState(blob);
    return true;
  }),

  // --- inspection
  anvil_nodeInfo: method([], async (ctx) => {
    const { chain } = ctx;
    const head = await chain.headBlock();
    return {
      currentBlockNumber: quantity(chain.headNumber),
      currentBlockTimestamp: Number(head.header.timestamp),
      currentBlockHash: hex(head.hash()),
      hardFork: chain.hardfork,
      transactionOrder: 'fees',
      environment: {
        baseFee: quantity(await chain.nextBaseFee()),
        chainId: quantity(chain.chainId),
        gasLimit: quantity(chain.gasLimit),
        gasPrice: quantity(chain.minGasPrice),
      },
      forkConfig: {},
      network: 'l2devnet',
      automine: automine(ctx),
    };
  }),
  txpool_status: method([], async (ctx) => {
    const { ready, queued } = await partitionPool(ctx);
    return { pending: quantity(ready.length), queued: quantity(queued.length) };
  }),
  txpool_content: method([], async (ctx) => {
    const { ready, queued } = await partitionPool(ctx);
    return poolContent(ready, queued, (p) => formatTransaction(p.tx, p.sender));
  }),
  txpool_inspect: method([], async (ctx) => {
    const { ready, queued } = await partitionPool(ctx);
    return poolContent(ready, queued, (p) => {
      const gasPrice = 'maxFeePerGas' in p.tx ? p.tx.maxFeePerGas : (p.tx as unknown as { gasPrice: bigint }).gasPrice;
      const to = p.tx.to === undefined ? 'contract creation' : bytesToHex(p.tx.to.bytes);
      return `${to}: ${p.tx.value} wei + ${p.tx.gasLimit} gas × ${gasPrice} wei`;
    });
  }),
};
