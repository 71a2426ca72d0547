/**
 * One running node, the only place one is assembled: the chain, the RPC over it, the blocks imported
 * before serving, the printed traces, and the HTTP + WebSocket server in front of it when it listens;
 * started and stopped together. The command and createDevnet both start theirs here, from options
 * checked by resolveNodeOptions.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bytesToHex } from '@ethereumjs/util';

import { Chain, MessageRelay } from '@l2devnet/core';
import { createRpc, messagingMethods } from '@l2devnet/rpc';
import type { Rpc } from '@l2devnet/rpc';
import type { RunningServer } from '@l2devnet/server';

import { importBlocks, readChainFile } from './chainFile';
import type { NodeConfig } from './options';
import { decodeMethods } from './decodeMethods';
import { dumpStateFile, loadStateFile } from './stateFile';
import { Decoder, printTraces } from './traces';

/** Where the node writes. */
export interface NodeOutput {
  /** A line for the operator: server notices, interval mining errors. */
  log(line: string): void;
  /** Printed traces and import progress. */
  out(text: string): void;
  /** `out` is a terminal (import progress as a bar). */
  terminal?: boolean;
  /** The clock of the credit day (the real UTC date by default). */
  creditClock?: () => number;
}

export interface RunningNode {
  chain: Chain;
  /** Says a line for the operator, as the node's own notices are said (--json, --silent). */
  log(line: string): void;
  rpc: Rpc;
  /** The L1 beside the L2 (--l1), its chain, its RPC and the messages' relay; undefined without it. */
  l1: { chain: Chain; rpc: Rpc; relay: MessageRelay } | undefined;
  /** Undefined unless the node listens. */
  server: RunningServer | undefined;
  close(): Promise<void>;
}

/**
 * Starts a node. A data directory that this start made (it was missing or empty) and that the start
 * failed in is removed again: a failed first start leaves no chain for the next one to reopen.
 */
export async function createNode(config: NodeConfig, output: NodeOutput): Promise<RunningNode> {
  const dir = config.chain.dataDir;
  const before = dir === undefined ? undefined : directoryState(dir);
  try {
    return await startNode(config, output);
  } catch (e) {
    // What this start wrote goes (a directory it could not write in is left as it was).
    try {
      if (before === 'missing') rmSync(dir as string, { recursive: true, force: true });
      else if (before === 'empty')
        for (const name of readdirSync(dir as string))
          rmSync(join(dir as string, name), { recursive: true, force: true });
    } catch {
      // The start's own error says what went wrong.
    }
    throw e;
  }
}

/** Whether a data directory is missing, empty, or holds something (a chain, or what the open refuses). */
function directoryState(dir: string): 'missing' | 'empty' | 'used' {
  try {
    return readdirSync(dir).length === 0 ? 'empty' : 'used';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'used';
  }
}

async function startNode(config: NodeConfig, output: NodeOutput): Promise<RunningNode> {
  for (const warning of config.chain.lineLimits?.warnings ?? []) output.log(`warning: ${warning}`);
  // Read before the chain is opened: a missing file leaves no data directory behind.
  const blocks = config.importFile === undefined ? undefined : readChainFile(config.importFile);
  const chain = await Chain.create(config.chain);
  let l1Chain: Chain | undefined;
  try {
    if (config.l1 !== undefined) l1Chain = await Chain.create(config.l1);
    if (blocks !== undefined)
      output.out(await importBlocks(chain, blocks, output.out, output.terminal === true, config.importHead));
    if (config.loadState !== undefined) await loadStateFile(chain, config.loadState);
  } catch (e) {
    await l1Chain?.close();
    await chain.close();
    throw e;
  }
  chain.dev.loggingEnabled = !config.silent;
  // What the node says from now on is said while logging is on (anvil_setLoggingEnabled, --silent),
  // its notices as JSON lines with --json.
  const said = output;
  output = {
    ...said,
    log: (line) => chain.dev.loggingEnabled && said.log(config.logFormat === 'json' ? jsonLogLine(line) : line),
    out: (text) => chain.dev.loggingEnabled && said.out(text),
  };
  // An interval block that fails to build is reported, not thrown.
  chain.on('error', (e) => output.log(`mining error: ${e.stack ?? e.message}`));
  l1Chain?.on('error', (e) => output.log(`L1 mining error: ${e.stack ?? e.message}`));
  // The messages between the two: anchored, finalized and claimed as the options say.
  const relay =
    l1Chain === undefined
      ? undefined
      : new MessageRelay(l1Chain, chain, output.log, {
          autoClaim: config.autoClaim,
          anchoringDelay: config.anchoringDelay,
          finalizationInterval: config.finalizationInterval,
        });
  const l1: RunningNode['l1'] =
    relay === undefined
      ? undefined
      : {
          chain: relay.l1,
          relay,
          rpc: createRpc(relay.l1, {
            requireCallFrom: config.requireCallFrom,
            extraMethods: messagingMethods(relay, 'l1'),
            layer: 'l1',
          }),
        };
  // The decoder loads viem and the artifacts: made on first use, or at start when artifacts are
  // given (a directory that cannot be read stops the start).
  let decoder: Decoder | undefined;
  const decoderOf = () => (decoder ??= new Decoder(config.artifacts));
  if (config.artifacts.length > 0) decoderOf();
  // What Anvil prints (the command's console), and at -v and up the same with more.
  if (config.console || config.verbosity > 0)
    printTraces(chain, {
      level: config.verbosity,
      consoleLog: config.consoleLog,
      decoder: decoderOf,
      write: output.out,
    });
  const extraMethods = {
    ...decodeMethods(chain, decoderOf),
    ...(relay === undefined ? {} : messagingMethods(relay, 'l2')),
  };
  const onRequest = config.console ? (method: string) => output.out(`${method}\n`) : undefined;
  const rpc = createRpc(chain, { requireCallFrom: config.requireCallFrom, extraMethods, onRequest });
  let server: RunningServer | undefined;
  if (config.listen !== undefined) {
    try {
      server = await listen(chain, rpc, l1?.rpc, config, config.listen, output);
    } catch (e) {
      rpc.close();
      await closeL1(l1);
      await chain.close();
      throw e;
    }
  }
  const { dumpState } = config;
  // --dump-state every --state-interval, one write at a time; a failed write is said, not thrown.
  let writing = Promise.resolve();
  const dump = () =>
    (writing = writing
      .then(() => dumpStateFile(chain, dumpState as string))
      .catch((e: unknown) => output.log(`cannot write the state to ${dumpState}: ${(e as Error).message}`)));
  const interval =
    dumpState !== undefined && config.stateIntervalMs !== undefined
      ? setInterval(dump, config.stateIntervalMs)
      : undefined;
  interval?.unref();
  if (config.configOut !== undefined) await writeConfigOut(config.configOut, chain);
  let closing: Promise<void> | undefined;
  return {
    chain,
    log: output.log,
    rpc,
    l1,
    server,
    close() {
      closing ??= (async () => {
        clearInterval(interval);
        await server?.close();
        rpc.close();
        // The state as the last request left it (--dump-state, --state).
        if (dumpState !== undefined) await dump();
        await closeL1(l1);
        await chain.close();
      })();
      return closing;
    },
  };
}

/** A notice or warning as Anvil's JSON log lines (--json). */
function jsonLogLine(line: string): string {
  const level = line.startsWith('warning') ? 'WARN' : line.includes('error') ? 'ERROR' : 'INFO';
  return JSON.stringify({ timestamp: new Date().toISOString(), level, fields: { message: line }, target: 'l2devnet' });
}

/**
 * --config-out: what Anvil writes there once it is up (its field names and value forms), so a
 * script that reads the accounts and keys from it works unchanged.
 */
async function writeConfigOut(file: string, chain: Chain): Promise<void> {
  const genesis = await chain.reads.getBlockByNumber(chain.reads.firstNumber);
  const baseFee = await chain.reads.nextBaseFee();
  const config = {
    available_accounts: chain.accounts.map((a) => bytesToHex(a.address)),
    private_keys: chain.accounts.map((a) => bytesToHex(a.privateKey)),
    wallet: { derivation_path: chain.derivationPath, mnemonic: chain.mnemonic },
    base_fee: String(baseFee),
    gas_price: String(baseFee + chain.reads.suggestedTip()),
    gas_limit: String(chain.gasLimit),
    genesis_timestamp: String(genesis?.header.timestamp ?? 0n),
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
}

async function closeL1(l1: RunningNode['l1']): Promise<void> {
  if (l1 === undefined) return;
  await l1.relay.close();
  l1.rpc.close();
  await l1.chain.close();
}

/** The HTTP + WebSocket server; loaded only when asked, so an in-process devnet never loads it. */
async function listen(
  chain: Chain,
  rpc: Rpc,
  l1: Rpc | undefined,
  config: NodeConfig,
  where: { host: string; port: number },
  output: NodeOutput,
): Promise<RunningServer> {
  const { CreditLedger, startServer } = await import('@l2devnet/server');
  return startServer(rpc, {
    l1,
    host: where.host,
    port: where.port,
    apiKeys: config.apiKeys,
    ledger: await CreditLedger.open(() => chain.kv, config.dailyCredits, output.creditClock),
    maxBodyBytes: config.maxBodyBytes,
    maxBatch: config.maxBatch,
    maxWsMessageBytes: config.maxWsMessageBytes,
    maxWsBackpressureBytes: config.maxWsBackpressureBytes,
    allowOrigin: config.allowOrigin,
    allowHosts: config.allowHosts,
    log: output.log,
  });
}
