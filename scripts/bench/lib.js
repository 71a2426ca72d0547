'use strict';
/**
 * Shared pieces of the benchmarks: a chain with the ERC20 fixture deployed, signed transactions,
 * statistics, a measurement on each engine.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const { createFeeMarket1559Tx } = require('@ethereumjs/tx');
const { hexToBytes, bytesToHex } = require('@ethereumjs/util');
const { Interface } = require('ethers');

const { Chain } = require('../../packages/core/dist');

const FIXTURES = join(__dirname, '..', '..', 'fixtures');
const artifact = (name) => JSON.parse(readFileSync(join(FIXTURES, 'contracts', `${name}.json`), 'utf8'));
const token = artifact('TestToken');
const tokenAbi = new Interface(token.abi);

/** A signer for dev account `index` that hands out increasing nonces. */
function signer(chain, index = 0) {
  let nonce = 0n;
  const account = chain.accounts[index];
  return {
    address: account.address,
    sign(fields) {
      return createFeeMarket1559Tx(
        {
          nonce: nonce++,
          gasLimit: 1_000_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          ...fields,
        },
        { common: chain.common },
      ).sign(account.privateKey);
    },
  };
}

async function deploy(chain, from, name, args = []) {
  const a = artifact(name);
  const data = hexToBytes(a.bytecode + new Interface(a.abi).encodeDeploy(args).slice(2));
  const hash = await chain.txs.submit(from.sign({ data, gasLimit: 5_000_000n }));
  return (await chain.reads.getReceipt(hash)).receipt.contractAddress;
}

function erc20Transfer(to, amount) {
  return hexToBytes(tokenAbi.encodeFunctionData('transfer', [bytesToHex(to), amount]));
}

/** Deploys the ERC20 fixture and returns a maker of transfers, each to a new recipient (a fresh storage slot every time, as in a token distribution). */
async function erc20Distribution(chain, from) {
  const token = await deploy(chain, from, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  let i = 0;
  return () => {
    const to = new Uint8Array(20);
    new DataView(to.buffer).setUint32(16, ++i);
    return from.sign({ to: token, data: erc20Transfer(to, 1n), gasLimit: 100_000n });
  };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

function ms(x) {
  return `${x.toFixed(3)} ms`;
}

function dirBytes(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    total += st.isDirectory() ? dirBytes(p) : st.size;
  }
  return total;
}

/** The engines a measurement runs on: the node's own (evm/) and ethereumjs (L2DEVNET_ENGINE=ethereumjs). */
const ENGINES = ['own', 'ethereumjs'];

/**
 * `measure` (which gives an object of figures) in a process of its own for each engine: `script`
 * (the caller's file) runs again as each child, with `--child`. In the parent, the figures of each
 * engine, in ENGINES' order; in a child, undefined (it writes its figures out).
 */
function perEngine(script, measure) {
  if (process.argv[2] === '--child') {
    measure().then(
      (figures) => process.stdout.write(JSON.stringify(figures)),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
    return undefined;
  }
  return ENGINES.map((engine) =>
    JSON.parse(
      execFileSync(process.execPath, [script, '--child'], {
        env: { ...process.env, L2DEVNET_ENGINE: engine },
        encoding: 'utf8',
      }),
    ),
  );
}

module.exports = {
  ENGINES,
  perEngine,
  Chain,
  artifact,
  token,
  tokenAbi,
  signer,
  deploy,
  erc20Transfer,
  erc20Distribution,
  stats,
  ms,
  dirBytes,
  hexToBytes,
};
