'use strict';
/**
 * The node's own engine beside ethereumjs (L2DEVNET_ENGINE=ethereumjs), in process, each in its own
 * process: the cost of one eth_call of an ERC20 balanceOf, one automined ERC20 transfer, and the
 * uses that run on either (an estimate, a call's line counts, a 100-call eth_simulateV1, a trace with
 * the struct logger), through the RPC layer.
 */
const { ENGINES, perEngine, Chain, signer, deploy, erc20Transfer, tokenAbi } = require('./lib');

const rows = perEngine(__filename, measure);
if (rows !== undefined) {
  console.log("## Engines, in process (own = the node's, evm/; ethereumjs = L2DEVNET_ENGINE=ethereumjs)");
  const labels = Object.keys(rows[0]);
  console.log(`${'use'.padEnd(44)}${ENGINES.map((e) => e.padStart(12)).join('')}   own/ethereumjs`);
  for (const label of labels) {
    const [own, ejs] = rows.map((r) => r[label]);
    console.log(
      `${label.padEnd(44)}${rows.map((r) => r[label].toFixed(3).padStart(12)).join('')}   ${(own / ejs).toFixed(2)}`,
    );
  }
}

async function measure() {
  const { bytesToHex } = require('@ethereumjs/util');
  const { createRpc } = require('../../packages/rpc/dist');
  const chain = await Chain.create({ workers: 0 });
  const rpc = createRpc(chain);
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  const call = async (method, params) => {
    const r = await rpc.handle({ jsonrpc: '2.0', id: 1, method, params });
    if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const from = bytesToHex(alice.address);
  const to = bytesToHex(token);
  /** Milliseconds per use, after a warm-up (`fn` is given the use's number, warm-up first). */
  const per = async (n, fn) => {
    const warm = Math.min(n, 50);
    for (let i = 0; i < warm; i++) await fn(i);
    const t = performance.now();
    for (let i = warm; i < warm + n; i++) await fn(i);
    return (performance.now() - t) / n;
  };
  const recipient = (i) => {
    const a = new Uint8Array(20);
    new DataView(a.buffer).setUint32(16, i + 1);
    return a;
  };
  const transfers = Array.from({ length: 1050 }, (_, i) =>
    alice.sign({ to: token, data: erc20Transfer(recipient(i), 1n), gasLimit: 100_000n }),
  );
  const out = {};
  out['automined ERC20 transfer (ms)'] = await per(1000, (i) => chain.txs.submit(transfers[i]));
  const balanceOf = { from, to, data: tokenAbi.encodeFunctionData('balanceOf', [from]) };
  out['eth_call ERC20 balanceOf (µs)'] = (await per(5000, () => call('eth_call', [balanceOf, 'latest']))) * 1000;
  const transfer = { from, to, data: tokenAbi.encodeFunctionData('transfer', [from, 1n]) };
  out['eth_estimateGas ERC20 transfer (ms)'] = await per(300, () => call('eth_estimateGas', [transfer]));
  out['l2_traceCallLineCounts ERC20 transfer (ms)'] = await per(300, () =>
    call('l2_traceCallLineCounts', [{ ...transfer, gas: '0x30000' }, 'latest']),
  );
  const hash = bytesToHex(transfers[1049].hash());
  out['debug_traceTransaction ERC20 transfer (ms)'] = await per(100, () => call('debug_traceTransaction', [hash]));
  const simulate = {
    blockStateCalls: [
      {
        calls: Array.from({ length: 100 }, (_, i) => ({
          from,
          to,
          data: tokenAbi.encodeFunctionData('transfer', [bytesToHex(recipient(i)), 1n]),
        })),
      },
    ],
  };
  out['eth_simulateV1 of 100 ERC20 transfers (ms)'] = await per(40, () => call('eth_simulateV1', [simulate, 'latest']));
  rpc.close();
  await chain.close();
  return out;
}
