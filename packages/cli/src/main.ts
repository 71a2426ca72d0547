/** The l2devnet command. */
import { ChainError } from '@l2devnet/core';
import type { KeptOption } from '@l2devnet/core';

import { banner } from './banner';
import { exportCommand, importCommand } from './chainFile';
import { HELP, parseFlags } from './flags';
import type { ParsedFlags } from './flags';
import { linesCommand } from './lines';
import { createNode } from './node';
import { FLAG_STYLE, OptionError, resolveNodeOptions } from './options';
import type { NodeConfig } from './options';
import { proofCommand } from './proof';

const VERSION = '0.1.0';

/** What a reopened chain keeps, as the warning names it. */
const KEPT: Record<KeptOption['option'], string> = {
  hardfork: 'hardfork',
  mnemonic: 'mnemonic',
  derivationPath: 'derivation path',
  accounts: 'number of accounts',
  balance: "accounts' balances",
  genesis: 'genesis',
  timestamp: 'genesis timestamp',
  baseFee: 'genesis base fee',
};

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

/**
 * Standard output, written once per turn of the event loop: the console prints a line for every
 * request, which a write (a system call) each would cost at thousands of requests a second.
 */
let pending = '';
function out(text: string): void {
  if (pending === '') setImmediate(flush);
  pending += text;
}
function flush(): void {
  const text = pending;
  pending = '';
  if (text !== '') process.stdout.write(text);
}

async function main(argv: string[]): Promise<void> {
  const subcommand = SUBCOMMANDS.get(argv[0]);
  if (subcommand !== undefined) {
    process.exitCode = await subcommand(argv.slice(1), out, process.stdout.isTTY === true);
    return;
  }
  let flags: ParsedFlags;
  let config: NodeConfig;
  try {
    flags = parseFlags(argv);
    if (flags.help) return void out(HELP);
    if (flags.version) return void out(`l2devnet v${VERSION}\n`);
    config = resolveNodeOptions(flags.options, FLAG_STYLE);
  } catch (e) {
    if (e instanceof OptionError || e instanceof ChainError) {
      process.stderr.write(`error: ${e.message}\nRun l2devnet --help for the options.\n`);
      process.exit(2);
    }
    throw e;
  }
  const node = await createNode(config, {
    log: (line) => process.stderr.write(`${line}\n`),
    out,
    terminal: process.stdout.isTTY === true,
  });
  // --silent: no banner and no notices; what the node says later waits for anvil_setLoggingEnabled.
  const say = config.silent ? () => {} : out;
  const server = node.server as NonNullable<typeof node.server>;
  const shutdown = (signal: string) => {
    say(`\nReceived ${signal}, shutting down\n`);
    node.close().then(
      () => {
        flush();
        process.exit(0);
      },
      (e: Error) => {
        process.stderr.write(`error while shutting down: ${e.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  // A reopened chain keeps what it was made with: say which options it did not take, as typed.
  for (const k of config.silent ? [] : node.chain.keptOptions) {
    const given = flags.options[k.option];
    const kept = `${KEPT[k.option]}${k.stored === undefined ? '' : ` (${k.stored})`}`;
    node.log(
      `warning: the chain in ${config.chain.dataDir} keeps its ${kept}; ${FLAG_STYLE.name(k.option)} ${String(given)} is ignored`,
    );
  }
  say(
    await banner(node.chain, {
      dataDir: config.chain.dataDir,
      limitsFile: config.limitsFile,
      rpcLineCheck: config.chain.rpcLineCheck !== false,
      version: VERSION,
    }),
  );
  const mode =
    config.apiKeys.length > 0
      ? `keyed mode, ${config.apiKeys.length} API key(s): ${server.url}/v3/<API_KEY>`
      : 'open mode: any key, or none';
  say(`RPC:               ${server.url} and ${server.wsUrl} (${mode})\n`);
  if (node.l1 !== undefined)
    say(`L1:                chain id ${node.l1.chain.chainId} at ${server.url}/l1 and ${server.wsUrl}/l1/ws\n`);
  say('\n');
  // The line tools wait for (Anvil prints the same).
  say(`Listening on ${server.host}:${server.port}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  // ListenError (the server's, loaded lazily): one line too.
  if (e instanceof ChainError || e instanceof OptionError || (e instanceof Error && e.name === 'ListenError')) {
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
