import { createMPT } from '@ethereumjs/mpt';
import { Account, Address, bytesToHex, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';

import { devCommon } from './genesis';
import { FlatState, flatStateManager } from './flatState';
import { initFastCrypto } from './fastCrypto';
import { openKvStore } from './kvStore';
import { StateDB, stateCaches } from './stateDb';
import { prng } from '../test/prng';

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
    const sm = flatStateManager(stateDb, new FlatState(), common, stateCaches(0));
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
    const fresh = flatStateManager(stateDb, new FlatState(), common, stateCaches(0), root);
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
