'use strict';
/**
 * `npm run bench`: every benchmark in turn, each in its own process.
 * `npm run bench -- --peers [flags]`: this node against Anvil, Hardhat and Ganache (peers.js), then its
 * own engine beside ethereumjs in process (engines.js) and where a transfer's and a call's time goes
 * on each (parts.js).
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const args = process.argv.slice(2);
const names = args.includes('--peers')
  ? ['peers', 'engines', 'parts']
  : ['startup', 'chain', 'engines', 'parts', 'lineCounting', 'lineaState', 'rpc', 'trace', 'import', 'server'];
for (const name of names) {
  execFileSync(process.execPath, [join(__dirname, `${name}.js`), ...args.filter((a) => a !== '--peers')], {
    stdio: 'inherit',
  });
  console.log('');
}
