/**
 * Anvil 1.7's flags as the command reads them: each taken with Anvil's meaning, as the option it sets,
 * or refused in one line that says why; none is an unknown option.
 */
import { FlagError, parseFlags } from './flags';

const options = (...argv: string[]) => parseFlags(argv).options;

test.each([
  [['--init', 'g.json'], { genesis: 'g.json' }],
  [['--no-mine'], { mining: false }],
  [['--blockTime', '2'], { blockTime: 2 }],
  [['-q'], { silent: true }],
  [['--quiet'], { silent: true }],
  [['--auto-unlock'], { autoImpersonate: true }],
  [['--derivation-path', "m/44'/60'/1'/0/"], { derivationPath: "m/44'/60'/1'/0/" }],
  [['--slots-in-an-epoch', '4'], { safeDepth: 4n, finalityDepth: 8n }],
  [['-j', '3'], { workers: 2 }],
  [['--threads', '0'], { workers: undefined }],
  [['--jobs', '1'], { workers: 0 }],
  [['--max-transactions', '2'], { maxTransactions: 2 }],
  [['--engine', 'ethereumjs'], { engine: 'ethereumjs' }],
  [
    ['--coinbase', '0x00000000000000000000000000000000000000c0'],
    { coinbase: '0x00000000000000000000000000000000000000c0' },
  ],
  [['--disable-pool-balance-checks'], { poolBalanceChecks: false }],
  [['--print-traces'], { verbosity: 4 }],
  [['--enable-trace-printing', '-vv'], { verbosity: 4 }],
  [['--disable-console-log'], { consoleLog: false }],
  [['--no-console-log'], { consoleLog: false }],
  [['--json'], { logFormat: 'json' }],
  [['--config-out', 'c.json'], { configOut: 'c.json' }],
  [['--allow-host', 'devbox', '--allow-host', 'ci.local'], { allowHosts: ['devbox', 'ci.local'] }],
  [['--no-request-size-limit'], { maxBodyBytes: 2 ** 29 - 24 }],
  [['--disable-default-create2-deployer'], { create2Deployer: false }],
  [['--no-create2'], { create2Deployer: false }],
  [['--fork-url', 'http://127.0.0.1:8545@1400000'], { forkUrl: 'http://127.0.0.1:8545', forkBlockNumber: 1_400_000n }],
  [['--fork-url', 'http://127.0.0.1:8545', '--fork-block-number', '-5'], { forkBlockNumber: -5n }],
  [['--no-rate-limit'], {}],
  [['--no-rpc-rate-limit'], {}],
  [['--steps-tracing'], {}],
  [['--tracing'], {}],
  [['--enable-tx-gas-limit'], {}],
  [['--color', 'never', '--md'], {}],
])('%j is taken as Anvil means it', (argv, expected) => {
  expect(options(...argv)).toMatchObject(expected);
});

test('the command prints what Anvil prints by default', () => {
  expect(options()).toMatchObject({ console: true, silent: false });
});

test('--mnemonic-random makes a new mnemonic of 12 words, or of the count given', () => {
  const twelve = options('--mnemonic-random').mnemonic as string;
  expect(twelve.split(' ')).toHaveLength(12);
  expect(options('--mnemonic-random').mnemonic).not.toBe(twelve);
  expect((options('--mnemonic-random', '24', '--port', '0').mnemonic as string).split(' ')).toHaveLength(24);
  expect(options('--mnemonic-random', '--port', '0').listen.port).toBe(0);
});

test('-V and --version ask for the version', () => {
  expect(parseFlags(['-V']).version).toBe(true);
});

test.each([
  [['--network', 'optimism'], '--network: this node emulates Linea'],
  [['-n', 'tempo'], '--network: this node emulates Linea'],
  [['--celo'], '--celo: this node emulates Linea, not Celo'],
  [['--ipc'], '--ipc: no IPC socket'],
  [['--mixed-mining'], '--mixed-mining: blocks are mined one per transaction'],
  [['--number', '5'], '--number: a chain starts at block 0 here'],
  [['--mnemonic-seed-unsafe', '7'], '--mnemonic-seed-unsafe: give the mnemonic'],
  [
    ['--disable-min-priority-fee'],
    "--disable-min-priority-fee: the suggested tip is what Linea's profitability rule needs",
  ],
  [['--max-persisted-states', '5'], '--max-persisted-states: the node keeps every state'],
  [['--transaction-block-keeper', '5'], '--transaction-block-keeper: the node keeps every block'],
  [['--cache-path', 'x'], '--cache-path: states are kept with the chain'],
  [['--preserve-historical-states'], '--preserve-historical-states: --dump-state writes the head state'],
  [['--mnemonic-random', '13'], '--mnemonic-random takes 12, 15, 18, 21 or 24 words; got "13"'],
  [['--mnemonic', 'a b c', '--mnemonic-random'], '--mnemonic and --mnemonic-random cannot be combined'],
  [['--no-storage-caching'], '--no-storage-caching goes with --fork-url'],
  [['--no-fork-cache'], '--no-fork-cache goes with --fork-url'],
  [['--color', 'purple'], '--color must be auto, always or never; got "purple"'],
  [['--enable-tx-gas-limit', '--hardfork', 'Prague'], "--enable-tx-gas-limit: EIP-7825's cap comes with Osaka here"],
  [
    ['--fork-url', 'http://x@5', '--fork-block-number', '6'],
    '--fork-url URL@BLOCK and --fork-block-number cannot be combined',
  ],
])('%j is refused in one line that says why', (argv, message) => {
  expect(() => parseFlags(argv)).toThrow(FlagError);
  expect(() => parseFlags(argv)).toThrow(message);
});
