'use strict';
/**
 * Linea's sparse-Merkle state (linea_getProof). What keeping it costs a block: ERC20 transfers mined
 * alone, then with the tries built after every block (as a node keeping them in step would); what
 * the lazy build costs instead: a chain of BLOCKS blocks (ERC20 transfers to new holders, ETH to
 * 1,000 new accounts) built at the first proof; proofs at the head once built; 1,000 account proofs
 * and 10,000 slot proofs checked by the independent verifier; the heap the tries take.
 */
const { concatBytes, setLengthLeft } = require('@ethereumjs/util');
const { keccak256 } = require('ethereum-cryptography/keccak');

const { verifyLineaProof } = require('../../packages/core/dist');
const { Chain, signer, deploy, erc20Transfer, stats, ms } = require('./lib');

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 10_000);
const ACCOUNTS = 1_000;
const STEP_BLOCKS = 1_000;
/** TestToken's balanceOf mapping is its slot 3: a holder's balance is at keccak(holder ‖ 3). */
const balanceSlot = (holder) => keccak256(concatBytes(setLengthLeft(holder, 32), setLengthLeft(Uint8Array.of(3), 32)));

function holder(i) {
  const to = new Uint8Array(20);
  new DataView(to.buffer).setUint32(16, i);
  return to;
}

/** A chain with the token deployed; `transfer(i)` signs a transfer of 1 to holder i. */
async function tokenChain() {
  const chain = await Chain.create({});
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  return {
    chain,
    alice,
    token,
    transfer: (i) => alice.sign({ to: token, data: erc20Transfer(holder(i), 1n), gasLimit: 100_000n }),
  };
}

/** `n` ERC20 transfers mined, one a block; with `keep`, the Linea root after each. Median ms a block. */
async function mine(n, keep) {
  const { chain, transfer } = await tokenChain();
  const txs = Array.from({ length: n }, (_, i) => transfer(i + 1));
  const samples = [];
  for (const tx of txs) {
    const t = performance.now();
    await chain.txs.submit(tx);
    if (keep) await chain.reads.lineaStateRoot(chain.headNumber);
    samples.push(performance.now() - t);
  }
  await chain.close();
  return stats(samples);
}

(async () => {
  console.log(`## Linea's sparse-Merkle state (linea_getProof)`);
  const plain = await mine(STEP_BLOCKS, false);
  const kept = await mine(STEP_BLOCKS, true);
  console.log(
    `ERC20 transfer block: mined ${ms(plain.median)} (median); with Linea's tries built after each ` +
      `${ms(kept.median)}, ${((kept.median / plain.median - 1) * 100).toFixed(0)}% more`,
  );

  const { chain, alice, token, transfer } = await tokenChain();
  const accounts = [];
  let holders = 0;
  const t0 = performance.now();
  for (let i = 0; i < BLOCKS; i++) {
    if (i % Math.ceil(BLOCKS / ACCOUNTS) === 0 && accounts.length < ACCOUNTS) {
      const to = holder(accounts.length + 1);
      to[0] = 0xee;
      accounts.push(to);
      await chain.txs.submit(alice.sign({ to, value: 1n, gasLimit: 21_000n }));
    } else await chain.txs.submit(transfer(++holders));
  }
  const head = chain.headNumber;
  console.log(
    `mined ${head} blocks (${accounts.length} new accounts, ${holders} new token holders) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  global.gc?.();
  const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = memory();
  let t = performance.now();
  const root = await chain.reads.lineaStateRoot(head);
  const build = performance.now() - t;
  global.gc?.();
  console.log(
    `first Linea root at the head, every block built: ${(build / 1000).toFixed(1)} s (${ms(build / Number(head + 1n))} a block); ` +
      `memory +${((memory() - heap0) / 2 ** 20).toFixed(0)} MiB (heap and buffers)`,
  );

  const proofs = [];
  const samples = [];
  for (const a of accounts) {
    t = performance.now();
    proofs.push(await chain.reads.lineaProof(a, [], head));
    samples.push(performance.now() - t);
  }
  // The token's holders' balances, 100 slots a proof.
  for (let i = 1; i <= Math.min(holders, 10_000); i += 100) {
    const slots = Array.from({ length: Math.min(100, holders - i + 1) }, (_, k) => balanceSlot(holder(i + k)));
    t = performance.now();
    proofs.push(await chain.reads.lineaProof(token, slots, head));
    samples.push(performance.now() - t);
  }
  const s = stats(samples.slice(0, accounts.length));
  console.log(`linea_getProof of an account at the head of ${head} blocks: median ${ms(s.median)}, p95 ${ms(s.p95)}`);
  const slotProofs = proofs.slice(accounts.length).reduce((n, p) => n + p.storageProofs.length, 0);
  t = performance.now();
  let ok = 0;
  for (const p of proofs) if (verifyLineaProof(p, root).ok) ok++;
  console.log(
    `${ok} of ${proofs.length} answers verified (${accounts.length} accounts, ${slotProofs} slots) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  await chain.close();
})();
