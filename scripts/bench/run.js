'use strict';
/** `npm run bench`: every benchmark in turn, each in its own process. */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

for (const name of ['startup', 'chain', 'lineCounting', 'rpc', 'trace', 'import', 'server']) {
  execFileSync(process.execPath, [join(__dirname, `${name}.js`)], { stdio: 'inherit' });
  console.log('');
}
