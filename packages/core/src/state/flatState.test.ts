import { createMPT } from '@ethereumjs/mpt';
import { Account, Address, bytesToHex, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import { MerkleStateManager } from '@ethereumjs/statemanager';

import { devCommon } from '../config/genesis';
import { FlatState, flatStateManager } from './flatState';
import { initFastCrypto } from '../config/fastCrypto';
import { openKvStore } from '../store/kvStore';
import { StateDB, stateCaches } from './stateDb';
import { prng } from '../../test/prng';

/** Seeded byte strings. */
function bytes(seed: number): (n: number) => Uint8Array {
  const rand = prng(seed);
  return (n) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
}

test('flat reads answer as the trie does: accounts and slots present and absent, tries of 0 to 300 slots', async () => {
  await initFastCrypto();
  const common = devCommon(31337n, 'osaka');
  const rand = bytes(7);
  for (const size of [0, 1, 2, 3, 17, 300]) {
    const stateDb = new StateDB(await openKvStore(undefined));
    const sm = flatStateManager(stateDb, new FlatState(), common, stateCaches());
    const address = new Address(rand(20));
    await sm.putAccount(address, new Account(1n, 5n));
    const written = new Map<string, Uint8Array>();
    for (let i = 0; i < size; i++) {
      const key = rand(32);
      const value = i % 3 === 0 ? rand(1) : rand(1 + (i % 31));
      if (value[0] === 0) value[0] = 1;
      await sm.putStorage(address, key, value);
      written.set(bytesToHex(key), value);
    }
    const root = await sm.getStateRoot();
    // The reference: ethereumjs's own trie over the same database.
    const reference = await createMPT({
      db: stateDb,
      root,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common,
    });
    const fresh = flatStateManager(stateDb, new FlatState(), common, stateCaches(), { root });
    const account = await fresh.getAccount(address);
    expect(account?.balance).toBe(5n);
    expect(RLP.encode(account!.raw())).toEqual(await reference.get(address.bytes));
    expect(await fresh.getAccount(new Address(rand(20)))).toBeUndefined();
    const storage = reference.shallowCopy(false);
    storage.root(account!.storageRoot);
    for (const [key, value] of written) {
      expect(await fresh.getStorage(address, hexToBytes(key))).toEqual(value);
      expect(RLP.decode((await storage.get(hexToBytes(key))) as Uint8Array)).toEqual(value);
    }
    for (let i = 0; i < 50; i++) expect(await fresh.getStorage(address, rand(32))).toEqual(new Uint8Array(0));
  }
});

/** A flat state manager (with the main chain's LRU caches) and ethereumjs's own, over fresh databases. */
async function bothManagers(hardfork: string) {
  const common = devCommon(31337n, hardfork);
  const make = async (stock: boolean) => {
    const stateDb = new StateDB(await openKvStore(undefined));
    const sm = flatStateManager(stateDb, new FlatState(), common, stateCaches());
    if (!stock) return sm;
    const trie = (sm as unknown as { _trie: unknown })._trie;
    return new MerkleStateManager({ trie: trie as never, common, caches: stateCaches() });
  };
  return { flat: await make(false), stock: await make(true) };
}

const C = new Address(hexToBytes('0x000000000000000000000000000000000000000c'));
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);

test('a flush inside a checkpoint that is then reverted (a pre-Byzantium receipt root, then an exclusion) leaves every node found', async () => {
  await initFastCrypto();
  const { flat, stock } = await bothManagers('homestead');
  const seen: string[] = [];
  for (const sm of [stock, flat]) {
    await sm.putAccount(C, new Account(1n, 1n));
    await sm.putStorage(C, slot(1), Uint8Array.of(1));
    await sm.getStateRoot();
    await sm.checkpoint(); // the block
    await sm.checkpoint(); // the builder's, for the transaction
    await sm.checkpoint(); // runTx's
    await sm.putStorage(C, slot(2), Uint8Array.of(2));
    await sm.getStateRoot(); // the receipt's intermediate root
    await sm.commit();
    await sm.revert(); // excluded for its lines
    const reads = [await sm.getStorage(C, slot(2)), await sm.getStorage(C, slot(4))].map(bytesToHex);
    await sm.putStorage(C, slot(3), Uint8Array.of(3));
    await sm.commit();
    seen.push(`${reads.join(' ')} ${bytesToHex(await sm.getStateRoot())}`);
  }
  expect(seen[1]).toBe(seen[0]);
});

test('a reverted SELFDESTRUCT or storage clear keeps the block´s earlier writes of that address', async () => {
  await initFastCrypto();
  for (const clear of ['deleteAccount', 'clearStorage'] as const) {
    const { flat, stock } = await bothManagers('shanghai');
    const seen: string[] = [];
    for (const sm of [stock, flat]) {
      await sm.putAccount(C, new Account(1n, 1n));
      await sm.putCode(C, Uint8Array.of(0));
      await sm.getStateRoot();
      await sm.checkpoint();
      await sm.checkpoint();
      await sm.putStorage(C, slot(1), Uint8Array.of(5)); // the first transaction
      await sm.commit();
      await sm.checkpoint();
      await sm[clear](C); // the second, excluded after it ran
      await sm.revert();
      const read = bytesToHex(await sm.getStorage(C, slot(1)));
      await sm.commit();
      seen.push(`${read} ${bytesToHex(await sm.getStateRoot())}`);
    }
    expect(seen[0].startsWith('0x05 ')).toBe(true);
    expect(seen[1]).toBe(seen[0]);
  }
});
