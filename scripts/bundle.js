#!/usr/bin/env node
/**
 * Bundles the l2devnet command into one file (packages/cli/dist/l2devnet.js) and writes a V8 code
 * cache for it. Loading ~400 modules one by one, half of them ES modules required from CommonJS,
 * costs more than the whole start-up budget (300 ms); one pre-compiled file costs a fraction.
 * Native modules stay external. Runs from `npm run build` and `prepare` (so after `npm ci`).
 *
 * The bundle sits in packages/<pkg>/dist like every package's build, so `__dirname`-relative
 * paths (fixtures/) resolve the same.
 */
'use strict';
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const esbuild = require('esbuild-wasm');

const root = join(__dirname, '..');
const outfile = join(root, 'packages', 'cli', 'dist', 'l2devnet.js');

esbuild.buildSync({
  entryPoints: [join(root, 'packages', 'cli', 'dist', 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minifyWhitespace: true,
  external: ['uWebSockets.js', 'classic-level', 'secp256k1'],
  logLevel: 'warning',
});

// A start-up of the bundled command writes its code cache (see packages/cli/bin/l2devnet.js): an
// in-memory node on a free port, stopped as soon as it is ready.
const child = spawn(
  process.execPath,
  [join(root, 'packages', 'cli', 'bin', 'l2devnet.js'), '--in-memory', '--port', '0'],
  {
    env: { ...process.env, L2DEVNET_WRITE_CODE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
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
