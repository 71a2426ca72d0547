/**
 * One running node: the chain, the RPC over it and the server in front of it, started and stopped
 * together. The command uses it, and so do the end-to-end tests.
 */
import { Chain } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';
import { createRpc } from '@l2devnet/rpc';
import type { Rpc } from '@l2devnet/rpc';
import { CreditLedger, startServer } from '@l2devnet/server';
import type { RunningServer } from '@l2devnet/server';

export interface NodeOptions {
  chain: ChainOptions;
  host?: string;
  port?: number;
  apiKeys?: string[];
  dailyCredits?: number;
  maxBodyBytes?: number;
  maxBatch?: number;
  maxWsMessageBytes?: number;
  maxWsBackpressureBytes?: number;
  requireCallFrom?: boolean;
  /** Clock for the credit day (the real UTC date by default). */
  creditClock?: () => number;
  log?: (line: string) => void;
  /** Runs on the opened chain before the server starts (e.g. importing blocks). */
  prepare?: (chain: Chain) => Promise<void>;
}

export interface RunningNode {
  chain: Chain;
  rpc: Rpc;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startNode(opts: NodeOptions): Promise<RunningNode> {
  const chain = await Chain.create(opts.chain);
  try {
    await opts.prepare?.(chain);
    const rpc = createRpc(chain, { requireCallFrom: opts.requireCallFrom });
    const ledger = await CreditLedger.open(chain.kv, opts.dailyCredits, opts.creditClock);
    const server = await startServer(rpc, {
      host: opts.host,
      port: opts.port,
      apiKeys: opts.apiKeys,
      ledger,
      maxBodyBytes: opts.maxBodyBytes,
      maxBatch: opts.maxBatch,
      maxWsMessageBytes: opts.maxWsMessageBytes,
      maxWsBackpressureBytes: opts.maxWsBackpressureBytes,
      health: () => ({ blockNumber: `0x${chain.headNumber.toString(16)}`, chainId: `0x${chain.chainId.toString(16)}` }),
      log: opts.log,
    });
    let closing: Promise<void> | undefined;
    return {
      chain,
      rpc,
      server,
      close() {
        closing ??= (async () => {
          await server.close();
          rpc.close();
          await chain.close();
        })();
        return closing;
      },
    };
  } catch (e) {
    await chain.close();
    throw e;
  }
}
