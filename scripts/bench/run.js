'use strict';
/**
 * `npm run bench`: every benchmark in turn, each in its own process.
 * `npm run bench -- --peers [flags]`: this node against Anvil, Hardhat and Ganache (peers.js), then its
 * own engine beside ethereumjs in process (engines.js).
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const args = process.argv.slice(2);
const names = args.includes('--peers')
  ? ['peers', 'engines']
  : ['startup', 'chain', 'engines', 'lineCounting', 'lineaState', 'rpc', 'trace', 'import', 'server'];
for (const name of names) {
  execFileSync(process.execPath, [join(__dirname, `${name}.js`), ...args.filter((a) => a !== '--peers')], {
    stdio: 'inherit',
  });
  console.log('');
}
