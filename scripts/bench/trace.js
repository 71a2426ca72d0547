'use strict';
/**
 * What tracing costs: an ERC20 transfer mined in its own block, then traced again and again through
 * the RPC layer with each tracer, against replaying it untraced (noopTracer, which runs the block
 * with no step events) and against executing the same transfer as an eth_call. Each figure is the
 * best of three rounds, taken in turn after a common warm-up.
 */
const { createRpc } = require('../../packages/rpc/dist');
const { Chain, signer, deploy, erc20Transfer } = require('./lib');

const N = 300;

(async () => {
  const chain = await Chain.create({});
  const rpc = createRpc(chain);
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  const hash = await chain.txs.submit(alice.sign({ to: token, data: erc20Transfer(chain.accounts[1].address, 5n) }));
  const hex = `0x${Buffer.from(hash).toString('hex')}`;
  const trace = async (options) => {
    const answer = await rpc.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceTransaction',
      params: [hex, options],
    });
    if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
  };
  const call = async () => {
    const data = `0x${Buffer.from(erc20Transfer(chain.accounts[2].address, 1n)).toString('hex')}`;
    const from = `0x${Buffer.from(chain.accounts[0].address).toString('hex')}`;
    const to = `0x${Buffer.from(token).toString('hex')}`;
    const answer = await rpc.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ from, to, data }, 'latest'],
    });
    if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
  };
  const runs = [
    ['eth_call of the same transfer', call],
    ['replay untraced (noopTracer)', () => trace({ tracer: 'noopTracer' })],
    ['callTracer', () => trace({ tracer: 'callTracer' })],
    ['callTracer withLog', () => trace({ tracer: 'callTracer', tracerConfig: { withLog: true } })],
    ['prestateTracer', () => trace({ tracer: 'prestateTracer' })],
    ['struct logger', () => trace({})],
    ['lineCountTracer', () => trace({ tracer: 'lineCountTracer' })],
  ];
  for (const [, fn] of runs) for (let i = 0; i < 100; i++) await fn();
  const best = new Map();
  for (let round = 0; round < 3; round++) {
    for (const [name, fn] of runs) {
      const t = performance.now();
      for (let i = 0; i < N; i++) await fn();
      const us = ((performance.now() - t) * 1000) / N;
      best.set(name, Math.min(best.get(name) ?? Infinity, us));
    }
  }
  console.log('## Tracing an ERC20 transfer (debug_traceTransaction, in process)');
  const call0 = best.get('eth_call of the same transfer');
  const replay = best.get('replay untraced (noopTracer)');
  for (const [name] of runs) {
    const us = best.get(name);
    console.log(
      `${name}: ${us.toFixed(0)} µs (${(us / call0).toFixed(2)}× the eth_call, ${(us / replay).toFixed(2)}× the untraced replay)`,
    );
  }
  await chain.close();
})();
