'use strict';
/**
 * In-process cost per call through the RPC layer (dispatch, param parsing, formatting included):
 * eth_blockNumber, eth_call of ERC20 balanceOf, and eth_getLogs over a 2,000-block chain (one
 * contract's Transfer logs, one topic, and a range with no match).
 */
const { bytesToHex } = require('@ethereumjs/util');

const { createRpc } = require('../../packages/rpc/dist');
const { Chain, signer, deploy, erc20Transfer, tokenAbi } = require('./lib');

const BLOCKS = Number(process.env.BENCH_LOG_BLOCKS ?? 2000);

async function perCall(label, n, fn) {
  for (let i = 0; i < Math.min(n, 200); i++) await fn(); // warm-up
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const us = ((performance.now() - t) * 1000) / n;
  console.log(`${label}: ${us.toFixed(1)} µs per call (${Math.round(1e6 / us)} calls/s)`);
}

(async () => {
  const chain = await Chain.create({});
  const rpc = createRpc(chain);
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  const other = await deploy(chain, alice, 'TestToken', ['Other', 'O', 10n ** 30n]);
  process.stdout.write(`## In-process RPC (building a ${BLOCKS}-block chain of ERC20 transfers...)\n`);
  for (let i = 0; i < BLOCKS; i++) {
    const to = new Uint8Array(20);
    new DataView(to.buffer).setUint32(16, i + 1);
    await chain.txs.submit(
      alice.sign({ to: i % 10 === 0 ? other : token, data: erc20Transfer(to, 1n), gasLimit: 100_000n }),
    );
  }
  const call = (method, params) => rpc.handle({ jsonrpc: '2.0', id: 1, method, params });
  const tokenHex = bytesToHex(token);
  const balanceOf = {
    from: bytesToHex(alice.address),
    to: tokenHex,
    data: tokenAbi.encodeFunctionData('balanceOf', [bytesToHex(alice.address)]),
  };
  await perCall('eth_blockNumber', 100_000, () => call('eth_blockNumber', []));
  await perCall('eth_call ERC20 balanceOf (latest)', 5_000, () => call('eth_call', [balanceOf, 'latest']));
  const head = `0x${chain.headNumber.toString(16)}`;
  const logs = await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: head, address: bytesToHex(other) }]);
  await perCall(`eth_getLogs one contract over ${BLOCKS} blocks (${logs.result.length} logs)`, 50, () =>
    call('eth_getLogs', [{ fromBlock: '0x0', toBlock: head, address: bytesToHex(other) }]),
  );
  const transferTopic = tokenAbi.getEvent('Transfer').topicHash;
  const toTopic = `0x${'0'.repeat(56)}${(7).toString(16).padStart(8, '0')}`;
  await perCall(`eth_getLogs one recipient topic over ${BLOCKS} blocks (1 log)`, 200, () =>
    call('eth_getLogs', [{ fromBlock: '0x0', toBlock: head, topics: [transferTopic, null, toTopic] }]),
  );
  await perCall(`eth_getLogs address with no logs over ${BLOCKS} blocks (0 logs)`, 1_000, () =>
    call('eth_getLogs', [{ fromBlock: '0x0', toBlock: head, address: bytesToHex(alice.address) }]),
  );
  rpc.close();
  await chain.close();
})();
