#!/usr/bin/env node
'use strict';
/**
 * Starts the bundled command (dist/l2devnet.js, see scripts/bundle.js) through V8's code cache
 * (rejected, and so unused, by a Node other than the one that wrote it), or, in the repository
 * before bundling, the command's unbundled build.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const v8 = require('node:v8');

// The node's heap grows by half of what a full collection leaves live, not by V8's own factor (up
// to 4x for a heap that collects fast, as this one does). After 1,000 transfers, 60,000 eth_calls
// and 20,000 blocks over HTTP: RSS 357-370 MiB -> 255-265 MiB, with ~1.5% of a transfer's time
// more in full collections (100-119 ms against 19-23 ms over 3,000 transfers). Set here, for the
// command's own process only: an embedding process (createDevnet) keeps its own settings.
v8.setFlagsFromString('--heap-growing-percent=50');

const bundle = path.join(__dirname, '..', 'dist', 'l2devnet.js');
const cacheFile = `${bundle}.cache`;

let source;
try {
  // The bundle is ASCII (esbuild escapes the rest), so latin1 reads it as UTF-8 would, without
  // decoding: ~50 ms less of a start-up for its 4 MB.
  source = fs.readFileSync(bundle).toString('latin1');
} catch {
  require('../../cli/dist/main.js');
  return;
}
// A run that writes the cache compiles from the source: V8 takes a cache made for another source of
// the same length (its check is the length), so a cache read here could be an older build's.
const writing = process.env.L2DEVNET_WRITE_CODE_CACHE === '1';
let cachedData;
try {
  cachedData = writing ? undefined : fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
const mod = new Module(bundle, module);
mod.filename = bundle;
mod.paths = Module._nodeModulePaths(path.dirname(bundle));
const run = script.runInThisContext();
if (writing) {
  // Written at exit, so the cache holds every function the run compiled.
  process.once('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));
}
run.call(mod.exports, mod.exports, (id) => mod.require(id), mod, bundle, path.dirname(bundle));
