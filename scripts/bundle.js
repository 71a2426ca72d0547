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
const { execFileSync } = require('node:child_process');
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

// A run that loads the bundle writes its code cache (see packages/cli/bin/l2devnet.js).
execFileSync(process.execPath, [join(root, 'packages', 'cli', 'bin', 'l2devnet.js'), '--version'], {
  env: { ...process.env, L2DEVNET_WRITE_CODE_CACHE: '1' },
  stdio: 'ignore',
});
