/** The l2devnet command. */
import { ChainError } from '@l2devnet/core';

import { banner } from './banner';
import { Decoder, printTraces } from './traces';
import { exportCommand, importBlocks, importCommand, readChainFile } from './chainFile';
import { FlagError, HELP, parseFlags } from './flags';
import type { CliConfig } from './flags';
import { linesCommand } from './lines';
import { proofCommand } from './proof';
import { startNode } from './node';

const VERSION = '0.1.0';

/** The subcommands: each takes its arguments, where to write, and whether that is a terminal. */
const SUBCOMMANDS = new Map<
  string,
  (argv: string[], out: (text: string) => void, terminal: boolean) => Promise<number>
>([
  ['lines', linesCommand],
  ['proof', proofCommand],
  ['export', exportCommand],
  ['import', importCommand],
]);

async function main(argv: string[]): Promise<void> {
  const subcommand = SUBCOMMANDS.get(argv[0]);
  if (subcommand !== undefined) {
    const out = (text: string) => process.stdout.write(text);
    process.exitCode = await subcommand(argv.slice(1), out, process.stdout.isTTY === true);
    return;
  }
  let config: CliConfig;
  try {
    config = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError || e instanceof ChainError) {
      process.stderr.write(`error: ${e.message}\nRun l2devnet --help for the options.\n`);
      process.exit(2);
    }
    throw e;
  }
  if (config.importHead !== undefined && config.importFile === undefined) {
    process.stderr.write('error: --head goes with --import FILE\nRun l2devnet --help for the options.\n');
    process.exit(2);
  }
  if (config.help) {
    process.stdout.write(HELP);
    return;
  }
  if (config.version) {
    process.stdout.write(`l2devnet v${VERSION}\n`);
    return;
  }
  for (const warning of config.chain.lineLimits?.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
  const node = await startNode({
    chain: config.chain,
    host: config.host,
    port: config.port,
    apiKeys: config.apiKeys,
    dailyCredits: config.dailyCredits,
    maxBodyBytes: config.maxBodyBytes,
    maxBatch: config.maxBatch,
    requireCallFrom: config.requireCallFrom,
    log: (line) => process.stderr.write(`${line}\n`),
    prepare: async (chain) => {
      if (config.importFile === undefined) return;
      const out = (text: string) => process.stdout.write(text);
      out(
        await importBlocks(
          chain,
          readChainFile(config.importFile),
          out,
          process.stdout.isTTY === true,
          config.importHead,
        ),
      );
    },
  });
  node.chain.on('error', (e) => process.stderr.write(`mining error: ${e.stack ?? e.message}\n`));
  if (config.verbosity > 0)
    printTraces(node.chain, {
      level: config.verbosity,
      decoder: new Decoder(config.artifacts),
      write: (text) => process.stdout.write(text),
    });
  const shutdown = (signal: string) => {
    process.stdout.write(`\nReceived ${signal}, shutting down\n`);
    node.close().then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`error while shutting down: ${e.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.stdout.write(
    await banner(node.chain, {
      dataDir: config.dataDir,
      limitsFile: config.limitsFile,
      rpcLineCheck: config.chain.rpcLineCheck !== false,
      version: VERSION,
    }),
  );
  const mode =
    config.apiKeys.length > 0
      ? `keyed mode, ${config.apiKeys.length} API key(s): ${node.server.url}/v3/<API_KEY>`
      : 'open mode: any key, or none';
  process.stdout.write(`RPC:               ${node.server.url} and ${node.server.wsUrl} (${mode})\n\n`);
  // The line tools wait for (Anvil prints the same).
  process.stdout.write(`Listening on ${node.server.host}:${node.server.port}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ChainError || e instanceof FlagError) {
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
