'use strict';
/**
 * What line counting costs, and which hook to count with. Block building (automine, one
 * transaction per block, sequencer-stage checks only) is timed with counting off, with each of
 * Linea's counters as the node runs them (opcode-handler wrappers, precompile, frame and message
 * interception, tallies folded per transaction): the full tracer (`--counter tracer`, the default)
 * and the limitless counter (`--counter limitless`); and with ethereumjs's `step` event listener
 * doing a bare per-opcode tally. Two workloads: ERC20 transfers and a keccak-heavy loop. The chains
 * take turns block by block, so the figures come from the same run.
 */
const { Interface } = require('ethers');

const { LineLimits } = require('../../packages/core/dist');
const { Chain, artifact, signer, deploy, erc20Distribution, hexToBytes } = require('./lib');

const limits = LineLimits.fromFile(
  require('node:path').join(__dirname, '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
);
const heavy = new Interface(artifact('LineHeavy').abi);

async function makeChain(mode) {
  const counting = mode === 'tracer' || mode === 'limitless';
  const chain = await Chain.create({
    lineLimits: limits,
    rpcLineCheck: false,
    lineCounting: counting,
    counter: mode === 'limitless' ? 'limitless' : 'tracer',
  });
  if (mode === 'step') {
    // The same per-opcode tally, fed by the EVM's step event instead of the handler wrappers.
    const ops = new Uint32Array(256);
    chain['head'].vm.evm.events.on('step', (step, resolve) => {
      ops[step.opcode.code]++;
      if (step.opcode.name === 'KECCAK256') void step.stack[step.stack.length - 2];
      resolve?.();
    });
  }
  return chain;
}

const workloads = {
  'ERC20 transfer': {
    blocks: 1500,
    setup: (chain, alice) => erc20Distribution(chain, alice),
  },
  'keccak loop (keccakLoop(300): 300 KECCAK256 per transaction)': {
    blocks: 200,
    async setup(chain, alice) {
      const address = await deploy(chain, alice, 'LineHeavy');
      const data = hexToBytes(heavy.encodeFunctionData('keccakLoop', [300]));
      return () => alice.sign({ to: address, data, gasLimit: 1_000_000n });
    },
  },
};

const MODES = ['off', 'tracer', 'limitless', 'step'];

/** Block building time (ms a block) of `workload` in each of `modes`, the chains taking turns block by block. */
async function compare(workload, modes = MODES) {
  const runs = [];
  for (const mode of modes) {
    const chain = await makeChain(mode);
    const next = await workload.setup(chain, signer(chain, 0));
    runs.push({ mode, chain, txs: Array.from({ length: workload.blocks + 20 }, () => next()), ms: 0 });
  }
  for (let i = 0; i < workload.blocks + 20; i++) {
    for (const run of runs) {
      const t = performance.now();
      await run.chain.txs.submit(run.txs[i]);
      if (i >= 20) run.ms += performance.now() - t; // the first 20 blocks warm up
    }
  }
  for (const run of runs) await run.chain.close();
  return Object.fromEntries(runs.map((r) => [r.mode, r.ms / workload.blocks]));
}

module.exports = { compare, workloads };

async function main() {
  console.log('## Line counting: cost of block building (automine, sequencer-stage checks)');
  for (const [name, workload] of Object.entries(workloads)) {
    const best = await compare(workload);
    const pct = (x) => `${(((x - best.off) / best.off) * 100).toFixed(1)}%`;
    console.log(
      `${name}: off ${best.off.toFixed(3)} ms/block; full tracer ${best.tracer.toFixed(3)} ms/block (+${pct(best.tracer)}); ` +
        `limitless counter ${best.limitless.toFixed(3)} ms/block (+${pct(best.limitless)}); ` +
        `step listener, bare tally ${best.step.toFixed(3)} ms/block (+${pct(best.step)})`,
    );
  }
}

if (require.main === module) main();
