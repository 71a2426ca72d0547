#!/usr/bin/env node
'use strict';
/**
 * Prints each tracer profile's modules, under each counter it has, as a Markdown table (those of
 * docs/lines.md): whether the count is exact or approximate and against what, and the counts of a signed
 * EIP-1559 ETH transfer and of an ERC20 transfer, each as the first transaction of a block (block
 * constants and spillage included). Modules in the order the tracer lists them.
 */

const { LineLimits, DEFAULT_LIMITS, profileOf } = require('../packages/core/dist');
const { Chain, signer, deploy, erc20Transfer } = require('./bench/lib');

async function table(profile, counter) {
  // The default hardfork for both: the token is compiled for Cancun.
  const lineLimits = LineLimits.fromFile(DEFAULT_LIMITS[profile], profile, counter);
  const chain = await Chain.create({ lineLimits, counter });
  const { putOrder, notes } = profileOf(profile, counter);
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['T', 'T', 10n ** 24n]);
  await chain.txs.submit(
    alice.sign({ to: token, data: erc20Transfer(chain.accounts[1].address, 1n), gasLimit: 100_000n }),
  );
  const eth = await chain.lines.transactionLineCounts(
    alice.sign({ to: chain.accounts[1].address, value: 1n, gasLimit: 21_000n }),
  );
  const erc20 = await chain.lines.transactionLineCounts(
    alice.sign({ to: token, data: erc20Transfer(chain.accounts[2].address, 5n), gasLimit: 100_000n }),
  );
  console.log(`\n#### --tracer ${profile}${profile === 'osaka' ? ` --counter ${counter}` : ''}\n`);
  console.log('| module | exact or approximate, against what | ETH transfer | ERC20 transfer |');
  console.log('|---|---|---:|---:|');
  for (const module of putOrder) console.log(`| ${module} | ${notes[module]} | ${eth[module]} | ${erc20[module]} |`);
  await chain.close();
}

(async () => {
  await table('osaka', 'tracer');
  await table('osaka', 'limitless');
  await table('london', 'tracer');
})();
