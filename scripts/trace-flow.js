'use strict';
/**
 * The tracer reference flow (fixtures/contracts/TraceFlow.sol), run against any node over HTTP:
 * deploys TraceFlow, sends run(5) and a reverting boom(), then asks for the traces the tracer tests
 * compare. Every transaction names its gas, so the traces do not depend on a node's estimate.
 *
 * Recording the reference from Anvil 1.7.1 (fixtures/traces/anvil-1.7.1.json), with steps tracing on
 * so its struct logger answers:
 *   ANVIL=/path/to/anvil node scripts/trace-flow.js --record
 * (the binary comes with the npm package @foundry-rs/anvil-linux-amd64@1.7.1).
 */
const { spawn } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const artifact = (name) =>
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'contracts', `${name}.json`), 'utf8'));
const RUN_5 = '0xa444f5e90000000000000000000000000000000000000000000000000000000000000005';
const RUN_7 = '0xa444f5e90000000000000000000000000000000000000000000000000000000000000007';
const BOOM = '0xa169ce09';

async function rpc(url, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = await res.json();
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** Runs the flow on the node at `url`; returns the traces by name. */
async function traceFlow(url) {
  const send = (tx) => rpc(url, 'eth_sendTransaction', [{ from: FROM, ...tx }]);
  const deployHash = await send({ data: artifact('TraceFlow').bytecode, gas: '0x2dc6c0' });
  const flow = (await rpc(url, 'eth_getTransactionReceipt', [deployHash])).contractAddress;
  const run = await send({ to: flow, data: RUN_5, gas: '0xf4240' });
  const boom = await send({ to: flow, data: BOOM, gas: '0x493e0' });
  const runBlock = (await rpc(url, 'eth_getTransactionReceipt', [run])).blockNumber;
  const trace = (hash, config) => rpc(url, 'debug_traceTransaction', [hash, config]);
  return {
    'run: callTracer': await trace(run, { tracer: 'callTracer' }),
    'run: callTracer withLog': await trace(run, { tracer: 'callTracer', tracerConfig: { withLog: true } }),
    'run: callTracer onlyTopCall': await trace(run, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }),
    'run: 4byteTracer': await trace(run, { tracer: '4byteTracer' }),
    'boom: flatCallTracer convertParityErrors': await trace(boom, {
      tracer: 'flatCallTracer',
      tracerConfig: { convertParityErrors: true },
    }),
    'run: prestateTracer': await trace(run, { tracer: 'prestateTracer' }),
    'run: prestateTracer diffMode': await trace(run, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }),
    'boom: prestateTracer diffMode': await trace(boom, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }),
    'deploy: callTracer': await trace(deployHash, { tracer: 'callTracer' }),
    'boom: callTracer': await trace(boom, { tracer: 'callTracer', tracerConfig: { withLog: true } }),
    'boom: struct logger': await trace(boom, {}),
    'boom: struct logger with memory, no stack': await trace(boom, { enableMemory: true, disableStack: true }),
    'call run(7): callTracer': await rpc(url, 'debug_traceCall', [
      { from: FROM, to: flow, data: RUN_7, gas: '0xf4240' },
      'latest',
      { tracer: 'callTracer' },
    ]),
    'block of run: callTracer': await rpc(url, 'debug_traceBlockByNumber', [runBlock, { tracer: 'callTracer' }]),
  };
}

async function record() {
  const anvil = spawn(process.env.ANVIL ?? 'anvil', ['--port', '8599', '--hardfork', 'prague', '--steps-tracing'], {
    stdio: 'ignore',
  });
  try {
    await new Promise((r) => setTimeout(r, 1500));
    const traces = await traceFlow('http://127.0.0.1:8599');
    const file = join(__dirname, '..', 'fixtures', 'traces', 'anvil-1.7.1.json');
    writeFileSync(file, `${JSON.stringify(traces, null, 1)}\n`);
    console.log(`recorded ${Object.keys(traces).length} traces to ${file}`);
  } finally {
    anvil.kill();
  }
}

if (require.main === module && process.argv.includes('--record')) record();

module.exports = { traceFlow };
