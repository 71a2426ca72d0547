import type { KvOp, KvStore } from '@l2devnet/core';

import { CreditLedger, MAX_UNLIMITED_KEYS, utcDay } from './creditLedger';

const NOW = Date.parse('2026-05-05T12:00:00.000Z');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A KvStore over a Map: enough for the ledger's puts, deletes and one range. */
function memoryKv(): KvStore & { rows: Map<string, Uint8Array> } {
  const rows = new Map<string, Uint8Array>();
  return {
    rows,
    get: async (key) => rows.get(hex(key)),
    batch: async (ops: KvOp[]) => {
      for (const op of ops) {
        if (op.type === 'put') rows.set(hex(op.key), op.value);
        else rows.delete(hex(op.key));
      }
    },
    async *range(gte, lt, limit = Infinity) {
      const inRange = [...rows.keys()].filter((k) => k >= hex(gte) && k < hex(lt)).sort();
      for (const k of inRange.slice(0, limit)) yield [Buffer.from(k, 'hex'), rows.get(k)!];
    },
    async *rangeBatches(gte, lt) {
      const inRange = [...rows.keys()].filter((k) => k >= hex(gte) && k < hex(lt)).sort();
      yield inRange.map((k) => [Buffer.from(k, 'hex'), rows.get(k)!] as [Uint8Array, Uint8Array]);
    },
    close: async () => undefined,
  };
}

/** Today's credit rows: 'c' ‖ day ‖ 0x00 ‖ key. */
const todaysRows = (kv: { rows: Map<string, Uint8Array> }) =>
  [...kv.rows.keys()].filter((k) => k.startsWith(hex(Buffer.from(`c${utcDay(NOW)}\0`)))).length;

/** A ledger over `kv` at NOW. */
const openLedger = (kv: KvStore, dailyCredits: number | undefined) =>
  CreditLedger.open(
    () => kv,
    dailyCredits,
    () => NOW,
  );

describe('CreditLedger', () => {
  test('given the database as a function, it writes to the one the function answers at each flush (a refork replaces it)', async () => {
    const first = memoryKv();
    const second = memoryKv();
    let current = first;
    const ledger = await CreditLedger.open(
      () => current,
      10,
      () => NOW,
    );
    try {
      ledger.charge('a', 3);
      await ledger.flush();
      expect(todaysRows(first)).toBe(1);
      current = second;
      ledger.charge('a', 2);
      await ledger.flush();
      expect(todaysRows(second)).toBe(1);
      expect([...second.rows.values()].map((v) => Buffer.from(v).toString())).toEqual(['5']);
    } finally {
      await ledger.close();
    }
  });

  test('an unlimited ledger counts at most MAX_UNLIMITED_KEYS keys, in memory and in rows, dropping the least recently charged', async () => {
    const kv = memoryKv();
    const ledger = await openLedger(kv, undefined);
    try {
      for (let i = 0; i < MAX_UNLIMITED_KEYS + 5_000; i++) {
        ledger.charge(`junk-${i}`, 1);
        if (i % 100 === 0) ledger.charge('regular', 10);
      }
      await ledger.flush();
      expect(ledger.keys).toBe(MAX_UNLIMITED_KEYS);
      expect(todaysRows(kv)).toBe(MAX_UNLIMITED_KEYS);
      expect(ledger.balance('regular').used).toBe(10 * (1 + Math.floor((MAX_UNLIMITED_KEYS + 4_999) / 100)));
      expect(ledger.balance(`junk-${MAX_UNLIMITED_KEYS + 4_999}`).used).toBe(1);
      expect(ledger.balance('junk-0').used).toBe(0);
    } finally {
      await ledger.close();
    }
    // A restart loads no more than the bound either.
    const reopened = await openLedger(kv, undefined);
    expect(reopened.keys).toBe(MAX_UNLIMITED_KEYS);
    await reopened.close();
  });

  test('a ledger with a daily balance keeps every key, so no balance can be reset by crowding it out', async () => {
    const kv = memoryKv();
    const ledger = await openLedger(kv, 10);
    try {
      for (let i = 0; i < MAX_UNLIMITED_KEYS + 100; i++) ledger.charge(`key-${i}`, 10);
      await ledger.flush();
      expect(ledger.keys).toBe(MAX_UNLIMITED_KEYS + 100);
      expect(todaysRows(kv)).toBe(MAX_UNLIMITED_KEYS + 100);
      expect(ledger.charge('key-0', 1)).toEqual({ ok: false, used: 10, remaining: 0 });
    } finally {
      await ledger.close();
    }
  });
});
