'use strict';
/**
 * Throughput of the running command: eth_blockNumber over HTTP keep-alive (pipelined, several
 * connections) and over WebSocket (several sockets, several requests in flight each), then the
 * node's resident memory after 100,000+ requests. The load comes from this process on the other
 * core (or from wrk when it is installed, `apt-get install wrk`, which loads the node harder).
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const net = require('node:net');
const { join } = require('node:path');

const WebSocket = require('ws');

const { postLua, wrk, wrkInstalled } = require('./wrk');

const BIN = join(__dirname, '..', '..', 'packages', 'l2devnet', 'bin', 'l2devnet.js');
const BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

function startNode() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--in-memory', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Listening on (\S+):(\d+)/.exec(out);
      if (m) resolve({ child, host: m[1], port: Number(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`node exited with ${code}`)));
  });
}

/** CPU seconds the process has used (user + system). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Requests per second, and the node's CPU cost per request (what one core could serve). */
async function measure(label, pid, load) {
  const cpu0 = cpuSeconds(pid);
  const requests = await load();
  const cpu = cpuSeconds(pid) - cpu0;
  const us = (cpu * 1e6) / requests;
  console.log(
    `${label}: ${Math.round(requests / SECONDS)} req/s; node CPU ${us.toFixed(1)} µs per request (${Math.round(1e6 / us)} req/s per core)`,
  );
  return requests;
}

function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

/** Pipelined HTTP/1.1 keep-alive: `connections` sockets, `depth` requests in flight on each. */
function httpLoad(host, port, seconds, connections = 8, depth = 16) {
  const request = `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;
  let done = 0;
  const end = Date.now() + seconds * 1000;
  return new Promise((resolve) => {
    let open = connections;
    for (let c = 0; c < connections; c++) {
      const socket = net.connect(port, host, () => socket.write(request.repeat(depth)));
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1');
        let answered = 0;
        for (;;) {
          const headerEnd = buffer.indexOf('\r\n\r\n');
          if (headerEnd < 0) break;
          const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, headerEnd))[1]);
          if (buffer.length < headerEnd + 4 + length) break;
          buffer = buffer.slice(headerEnd + 4 + length);
          answered++;
        }
        done += answered;
        if (Date.now() < end) socket.write(request.repeat(answered));
        else if (buffer.length === 0) socket.end();
      });
      socket.on('close', () => {
        if (--open === 0) resolve(done);
      });
    }
  });
}

function wsLoad(host, port, seconds, sockets = 8, depth = 16) {
  let done = 0;
  const end = Date.now() + seconds * 1000;
  return new Promise((resolve) => {
    let open = sockets;
    for (let s = 0; s < sockets; s++) {
      const ws = new WebSocket(`ws://${host}:${port}/ws`);
      let inFlight = 0;
      ws.on('open', () => {
        for (let i = 0; i < depth; i++, inFlight++) ws.send(BODY);
      });
      ws.on('message', () => {
        done++;
        inFlight--;
        if (Date.now() < end) {
          ws.send(BODY);
          inFlight++;
        } else if (inFlight === 0) ws.close();
      });
      ws.on('close', () => {
        if (--open === 0) resolve(done);
      });
    }
  });
}

(async () => {
  const node = await startNode();
  console.log(`## Server: eth_blockNumber against the running command (${SECONDS} s each)`);
  const rss0 = rssKiB(node.child.pid);
  let total = 0;
  const pid = node.child.pid;
  total += await measure('HTTP keep-alive, pipelined (node client)', pid, () =>
    httpLoad(node.host, node.port, SECONDS),
  );
  if (wrkInstalled()) {
    total += await measure(
      'HTTP keep-alive (wrk, 64 connections)',
      pid,
      async () =>
        wrk(`http://${node.host}:${node.port}/`, { connections: 64, seconds: SECONDS, lua: postLua(BODY) }).requests,
    );
  }
  total += await measure('WebSocket (8 sockets × 16 in flight)', pid, () => wsLoad(node.host, node.port, SECONDS));
  const rss1 = rssKiB(node.child.pid);
  console.log(`RSS: ${(rss0 / 1024).toFixed(0)} MiB at start, ${(rss1 / 1024).toFixed(0)} MiB after ${total} requests`);
  node.child.kill('SIGTERM');
})();
