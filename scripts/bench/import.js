'use strict';
/**
 * Import rate: a 2,000-block chain of ERC20 transfers made in memory, exported, and imported into a
 * fresh in-memory node (every block run and checked against its header). Prints blocks/s and gas/s.
 */
const { concatBytes } = require('@ethereumjs/util');

const { Chain, signer, erc20Distribution } = require('./lib');

const BLOCKS = 2000;

(async () => {
  const source = await Chain.create({ rpcLineCheck: false });
  const next = await erc20Distribution(source, signer(source, 0));
  for (let i = 0; i < BLOCKS; i++) await source.txs.submit(next());
  const file = concatBytes(...(await source.imports.exportBlocks(0n, source.headNumber)));
  const target = await Chain.create({});
  const t = performance.now();
  const result = await target.imports.importBlocks(file);
  const s = (performance.now() - t) / 1000;
  console.log('## Import (l2devnet import): ERC20 transfers, one per block, in memory');
  console.log(
    `${result.imported} blocks in ${s.toFixed(2)} s: ${(result.imported / s).toFixed(0)} blocks/s, ` +
      `${(Number(result.gas) / s / 1e6).toFixed(2)} Mgas/s (file ${(file.length / 1024).toFixed(0)} KiB)`,
  );
  await source.close();
  await target.close();
})();
