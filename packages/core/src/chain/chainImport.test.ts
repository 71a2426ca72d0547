/**
 * Export and import, as geth's `export` and `import` exchange chains: a chain made here (transfers,
 * a deployment, logs) round-trips into a fresh node, and a block that does not hold stops the import
 * naming the block and the field.
 */
import type { Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes } from '@ethereumjs/util';

import { calldata, chainWithOmmer, deploy, send } from '../../test/helpers';
import { Chain } from './chain';
import { ImportError } from '../errors';

const INCREMENT = '0xd09de08a';

async function madeChain(): Promise<Chain> {
  const chain = await Chain.create({});
  const bob = chain.accounts[1].address;
  await send(chain, 0, { to: bob, value: 10n ** 18n });
  const counter = await deploy(chain, 'Counter');
  for (let i = 0; i < 3; i++) await send(chain, 1, { to: counter, data: calldata(INCREMENT), gasLimit: 100_000n });
  await send(chain, 2, { to: bob, value: 1n, data: new Uint8Array([1, 2, 3]) });
  return chain;
}

describe('export and import', () => {
  test('a chain made here imports into a fresh node: every block, receipt and proof the same', async () => {
    const source = await madeChain();
    const target = await Chain.create({});
    try {
      const blocks = await source.imports.exportBlocks(0n, source.headNumber);
      expect(blocks).toHaveLength(Number(source.headNumber) + 1);
      const seen: bigint[] = [];
      const result = await target.imports.importBlocks(concatBytes(...blocks), (b) => seen.push(b.header.number));
      expect(result).toMatchObject({ imported: Number(source.headNumber), skipped: 1 });
      expect(result.gas).toBeGreaterThan(0n);
      expect(seen).toEqual(Array.from({ length: Number(source.headNumber) }, (_, i) => BigInt(i + 1)));
      expect(target.headNumber).toBe(source.headNumber);
      for (let n = 0n; n <= source.headNumber; n++) {
        const ref = { kind: 'number' as const, number: n };
        const [a, b] = [await source.reads.getBlock(ref), await target.reads.getBlock(ref)];
        expect(bytesToHex(b!.hash())).toBe(bytesToHex(a!.hash()));
        expect(await target.reads.getReceipts(n)).toEqual(await source.reads.getReceipts(n));
      }
      const bob = source.accounts[1].address;
      expect(await target.reads.getProof(bob, [], 2n)).toEqual(await source.reads.getProof(bob, [], 2n));
      // Importing the same file again changes nothing.
      expect(await target.imports.importBlocks(concatBytes(...blocks))).toMatchObject({ imported: 0 });
    } finally {
      await source.close();
      await target.close();
    }
  });

  test('one changed byte stops the import at that block, naming the field; the blocks before it stay', async () => {
    const source = await madeChain();
    const target = await Chain.create({});
    try {
      // From genesis, so the new node takes the file's genesis whatever second each was made in.
      const blocks = await source.imports.exportBlocks(0n, source.headNumber);
      // Block 3's header: change one byte of its state root.
      const decoded = RLP.decode(blocks[3]) as unknown as Uint8Array[][];
      const root = Uint8Array.from(decoded[0][3]);
      root[31] ^= 1;
      decoded[0][3] = root;
      blocks[3] = RLP.encode(decoded as never);
      const error = await target.imports.importBlocks(concatBytes(...blocks)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as Error).message).toMatch(
        new RegExp(`^block 3: stateRoot is 0x[0-9a-f]{64} in the block, 0x[0-9a-f]{64} when run$`),
      );
      expect(target.headNumber).toBe(2n);
      const garbage = await target.imports.importBlocks(new Uint8Array([0xf9, 0xff])).catch((e: unknown) => e);
      expect((garbage as Error).message).toMatch(/^block 3: not a block's RLP/);
    } finally {
      await source.close();
      await target.close();
    }
  });

  test('a chain made for another chain id, from the same genesis, is refused at its first transaction', async () => {
    // Genesis files that differ in config.chainId alone: one genesis block, two chains. (Dev chains of
    // two chain ids differ at genesis already: Permit2's code holds its chain id.)
    const genesis = (chainId: number) => ({
      config: {
        chainId,
        ...Object.fromEntries(
          ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul']
            .concat(['berlin', 'london', 'mergeNetsplit'])
            .map((fork) => [`${fork}Block`, 0]),
        ),
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
      },
      gasLimit: '0x1c9c380',
      alloc: { '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': { balance: '0xffffffffffffffffffff' } },
    });
    const source = await Chain.create({ genesis: genesis(31337) });
    const target = await Chain.create({ genesis: genesis(7) });
    try {
      await send(source, 0, { to: source.accounts[1].address, value: 1n });
      const blocks = await source.imports.exportBlocks(0n, 1n);
      const error = await target.imports.importBlocks(concatBytes(...blocks)).catch((e: unknown) => e);
      expect((error as Error).message).toBe(
        'block 1: a transaction is signed for another chain than this one (chain id 7)',
      );
      expect(target.headNumber).toBe(0n);
    } finally {
      await source.close();
      await target.close();
    }
  });
});

describe('proof-of-work blocks with ommers', () => {
  test.each([
    ['an ancestor', (first: Block) => first.header.toJSON(), 'is an ancestor of the block'],
    [
      'not a child of an ancestor',
      (_: Block, f: Record<string, unknown>) => ({ ...f, parentHash: `0x${'11'.repeat(32)}` }),
      "is not a child of one of the block's last ancestors",
    ],
    [
      'of a wrong difficulty',
      (_: Block, f: Record<string, unknown>) => ({ ...f, difficulty: '0x1' }),
      'difficulty is 1, 131072 by the rules',
    ],
  ])('an ommer that is %s stops the import, naming it', async (_what, ommerOf, message) => {
    const made = await chainWithOmmer(ommerOf as never);
    const target = await Chain.create({ genesis: made.genesis, mining: { mode: 'manual' } });
    try {
      await expect(target.imports.importBlocks(made.file)).rejects.toThrow(
        new RegExp(`^block 2: ommer 0x[0-9a-f]{64}.* ${message.replace(/[()']/g, '.')}`),
      );
      expect(target.headNumber).toBe(1n);
    } finally {
      await target.close();
    }
  });

  test("import a block with an ommer made by ethereumjs's runBlock: the same rewards, the ommer listed", async () => {
    const made = await chainWithOmmer();
    const target = await Chain.create({ genesis: made.genesis, mining: { mode: 'manual' } });
    try {
      expect(await target.imports.importBlocks(made.file)).toMatchObject({ imported: 2 });
      const imported = await target.reads.getBlockByNumber(2n);
      expect(bytesToHex(imported!.hash())).toBe(bytesToHex(made.block.hash()));
      expect(imported!.uncleHeaders.map((u) => bytesToHex(u.hash()))).toEqual([bytesToHex(made.ommer.hash())]);
      // London's 2 ETH: the miner 1/32 more for the ommer, the ommer's miner (8 - 1)/8.
      const reward = 2n * 10n ** 18n;
      expect((await target.reads.getAccount(made.miner, 2n)).balance).toBe(reward + reward / 32n);
      expect((await target.reads.getAccount(made.ommerMiner, 2n)).balance).toBe((reward * 7n) / 8n);
    } finally {
      await target.close();
    }
  });
});
