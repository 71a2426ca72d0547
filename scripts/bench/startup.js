'use strict';
/** Start-up time of the command: from spawning it to its ready line, median of 7, in memory and on disk. */
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const BIN = join(__dirname, '..', '..', 'packages', 'l2devnet', 'bin', 'l2devnet.js');

function once(args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [BIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let ready;
    child.stdout.on('data', (d) => {
      out += d;
      if (ready === undefined && out.includes('Listening on')) {
        ready = performance.now() - t;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', () => (ready === undefined ? reject(new Error('no ready line')) : resolve(ready)));
  });
}

async function median(args) {
  const times = [];
  for (let i = 0; i < 7; i++) times.push(await once(typeof args === 'function' ? args() : args));
  times.sort((a, b) => a - b);
  return times[3];
}

(async () => {
  console.log('## Start-up: spawn to ready line (median of 7)');
  console.log(`in memory: ${(await median(['--in-memory'])).toFixed(0)} ms`);
  const dirs = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'l2devnet-start-'));
    dirs.push(d);
    return ['--data-dir', d];
  };
  console.log(`new data dir: ${(await median(fresh)).toFixed(0)} ms`);
  const existing = fresh();
  console.log(`existing data dir: ${(await median(existing)).toFixed(0)} ms`);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
})();
