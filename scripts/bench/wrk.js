'use strict';
/** wrk (`apt-get install wrk`), the load generator the throughput benchmarks use when it is installed. */
const { execFileSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

let installed;

function wrkInstalled() {
  if (installed === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      installed = true;
    } catch (e) {
      installed = e.status === 1; // wrk --version exits 1 after printing its version
    }
  }
  return installed;
}

/** One wrk run of `lua`'s requests against `url` on one thread; a failed answer fails the run. */
function wrk(url, { connections, seconds, lua }) {
  const script = join(tmpdir(), `l2devnet-wrk-${process.pid}.lua`);
  writeFileSync(script, lua);
  const out = execFileSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, url], {
    encoding: 'utf8',
  });
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (errors) throw new Error(`wrk: ${errors[1]} failed responses`);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]), requests: Number(/(\d+) requests in/.exec(out)[1]) };
}

/** A wrk script that POSTs the same JSON body every time. */
function postLua(body) {
  return `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`;
}

module.exports = { wrkInstalled, wrk, postLua };
