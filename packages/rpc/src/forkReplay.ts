/**
 * A remote transaction's line counts: its block run again on a fork of the block's parent, with the
 * block's transactions up to it, under its header's coinbase, base fee, gas limit and time. Counting
 * runs with every limit out of reach (nothing is excluded); the report is made against the limits.
 * `l2devnet lines TXHASH --fork-url` and a forked node's l2_traceLineCounts of a remote transaction.
 */
import { Chain, ForkError } from '@l2devnet/core';
import type { CounterName, LineLimits, TracerProfileName } from '@l2devnet/core';

import { createProvider } from './provider';
import { createRpc } from './rpc';
import type { RemoteNode } from './remote';

export interface ReplaySettings {
  limits: LineLimits;
  tracer?: TracerProfileName;
  counter?: CounterName;
  hardfork?: string;
  /** Where the fork's state is kept (--fork-cache); undefined keeps it in memory. */
  cacheDir?: string;
}

export interface RemoteReplay {
  /** l2_traceLineCounts's answer for the transaction, run again. */
  report: unknown;
  /** The block run again, and how many of its transactions ran before this one. */
  blockNumber: bigint;
  before: number;
  /** Gas the transaction used here, and in the remote's receipt. */
  gasUsed: bigint;
  remoteGasUsed: bigint | undefined;
}

/** Undefined when the remote has no mined transaction `hash`. */
export async function replayRemoteTransaction(
  remote: RemoteNode,
  hash: string,
  settings: ReplaySettings,
): Promise<RemoteReplay | undefined> {
  const tx = (await remote.call('eth_getTransactionByHash', [hash])) as {
    blockNumber?: string | null;
    transactionIndex?: string;
  } | null;
  if (typeof tx?.blockNumber !== 'string' || typeof tx.transactionIndex !== 'string') return undefined;
  const n = BigInt(tx.blockNumber);
  const block = (await remote.call('eth_getBlockByNumber', [tx.blockNumber, false])) as {
    transactions: string[];
    timestamp: string;
    miner: string;
    gasLimit: string;
    baseFeePerGas?: string;
  };
  const hashes = block.transactions.slice(0, Number(tx.transactionIndex) + 1);
  const raws = await Promise.all(hashes.map((h) => remote.call('eth_getRawTransactionByHash', [h])));
  const chain = await Chain.create({
    fork: { source: remote, blockNumber: n - 1n, cacheDir: settings.cacheDir },
    accounts: 0,
    mining: { mode: 'manual' },
    order: 'fifo',
    sequencerRules: false,
    rpcLineCheck: false,
    gasLimit: BigInt(block.gasLimit),
    hardfork: settings.hardfork,
    tracer: settings.tracer,
    counter: settings.counter,
    lineLimits: settings.limits,
  });
  try {
    const provider = createProvider(createRpc(chain, { requireCallFrom: false }));
    const call = (method: string, params: unknown[]) => provider.request({ method, params });
    // Nothing is excluded while the block runs: every limit out of reach, the real ones after.
    const unreachable = Object.fromEntries(Object.keys(settings.limits.limits).map((m) => [m, 2 ** 31 - 1]));
    await chain.lines.setLineLimits(unreachable);
    await call('anvil_setCoinbase', [block.miner]);
    if (block.baseFeePerGas !== undefined) await call('anvil_setNextBlockBaseFeePerGas', [block.baseFeePerGas]);
    for (const raw of raws) await call('eth_sendRawTransaction', [raw]);
    await call('evm_mine', [block.timestamp]);
    await chain.lines.resetLineLimits();
    const report = await call('l2_traceLineCounts', [hash]);
    if (report === null)
      throw new ForkError(`${hash} did not run again on a fork of block ${n - 1n} of ${remote.name}`);
    const mine = (await call('eth_getTransactionReceipt', [hash])) as { gasUsed: string };
    const theirs = (await remote.call('eth_getTransactionReceipt', [hash])) as { gasUsed?: string } | null;
    return {
      report,
      blockNumber: n,
      before: hashes.length - 1,
      gasUsed: BigInt(mine.gasUsed),
      remoteGasUsed: typeof theirs?.gasUsed === 'string' ? BigInt(theirs.gasUsed) : undefined,
    };
  } finally {
    await chain.close();
  }
}
