'use strict';
/**
 * Mining cost: one block per transaction (automine), median over many, for a plain transfer and an
 * ERC20 transfer, in memory and on disk; and the disk used per 1,000 such blocks. Then the ERC20
 * transfers in memory with Linea's sequencer rules off, beside the same with them on (the default).
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { Chain, signer, erc20Distribution, stats, ms, dirBytes } = require('./lib');

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 1000);

async function run(label, dataDir, makeTx, sequencerRules) {
  const chain = await Chain.create({ dataDir, rpcLineCheck: true, sequencerRules });
  const alice = signer(chain, 0);
  const setup = await makeTx(chain, alice);
  const txs = Array.from({ length: BLOCKS + 100 }, () => setup());
  for (let i = 0; i < 100; i++) await chain.txs.submit(txs[i]); // warm-up
  const before = dataDir === undefined ? 0 : dirBytes(dataDir);
  const samples = [];
  const t0 = performance.now();
  for (let i = 100; i < txs.length; i++) {
    const t = performance.now();
    await chain.txs.submit(txs[i]);
    samples.push(performance.now() - t);
  }
  const total = performance.now() - t0;
  await chain.close();
  const s = stats(samples);
  let disk = '';
  if (dataDir !== undefined)
    disk = `, disk ${((dirBytes(dataDir) - before) / 1024 / (BLOCKS / 1000)).toFixed(0)} KiB per 1,000 blocks`;
  console.log(
    `${label}: median ${ms(s.median)}, p95 ${ms(s.p95)} per block; ${(BLOCKS / (total / 1000)).toFixed(0)} tx/s${disk}`,
  );
}

const transfer = async (chain, alice) => () =>
  alice.sign({ to: chain.accounts[1].address, value: 1n, gasLimit: 21_000n });
const erc20 = (chain, alice) => erc20Distribution(chain, alice);

(async () => {
  console.log(`## Mining: automine, one transaction per block (${BLOCKS} blocks each)`);
  for (const [name, make] of [
    ['plain transfer', transfer],
    ['ERC20 transfer', erc20],
  ]) {
    await run(`${name}, in memory`, undefined, make);
    const dir = mkdtempSync(join(tmpdir(), 'l2devnet-bench-'));
    try {
      await run(`${name}, on disk`, dir, make);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // The cost of Linea's sequencer rules per transaction: the same run with them on and off.
  await run('ERC20 transfer, in memory, sequencer rules on', undefined, erc20, true);
  await run('ERC20 transfer, in memory, sequencer rules off', undefined, erc20, false);
})();
