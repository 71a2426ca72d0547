import fc from 'fast-check';

import { ByteMap } from './byteMap';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('answers as a Map does over any sequence of sets, overwrites and deletes', () => {
  const key = fc.uint8Array({ minLength: 0, maxLength: 3, max: 3 }); // few keys: overwrites and collisions
  const op = fc.oneof(fc.record({ set: key, value: fc.uint8Array({ maxLength: 40 }) }), fc.record({ del: key }));
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const map = new ByteMap();
      const model = new Map<string, Uint8Array>();
      for (const o of ops) {
        if ('set' in o) {
          map.set(o.set, o.value);
          model.set(hex(o.set), o.value);
        } else {
          map.delete(o.del);
          model.delete(hex(o.del));
        }
        expect(map.size).toBe(model.size);
      }
      for (let n = 0; n < 4 ** 3; n++) {
        for (const k of [
          Uint8Array.of(),
          Uint8Array.of(n & 3),
          Uint8Array.of(n & 3, n >> 2),
          Uint8Array.of(n & 3, n >> 2, n >> 4),
        ])
          expect(map.get(k)).toEqual(model.get(hex(k)));
      }
    }),
  );
});

test('holds 200,000 entries and keeps a value apart from the array it was given', () => {
  const map = new ByteMap();
  const key = new Uint8Array(33);
  const view = new DataView(key.buffer);
  for (let i = 0; i < 200_000; i++) {
    view.setUint32(1, i);
    map.set(key, key.subarray(1, 5));
  }
  expect(map.size).toBe(200_000);
  for (const i of [0, 1, 199_999, 123_456]) {
    view.setUint32(1, i);
    expect(hex(map.get(key)!)).toBe(i.toString(16).padStart(8, '0'));
  }
  const value = Uint8Array.of(1, 2, 3);
  map.set(Uint8Array.of(7), value);
  value[0] = 9;
  expect(map.get(Uint8Array.of(7))).toEqual(Uint8Array.of(1, 2, 3));
});

test('stores values larger than a buffer, and drops the bytes of replaced ones', () => {
  const map = new ByteMap();
  const big = new Uint8Array(9 << 20).fill(5);
  map.set(Uint8Array.of(1), big);
  map.set(Uint8Array.of(2), Uint8Array.of(2));
  expect(Buffer.from(big).equals(map.get(Uint8Array.of(1))!)).toBe(true);
  // 40 MB written over one key: compaction keeps what is live.
  for (let i = 0; i < 40; i++) map.set(Uint8Array.of(3), new Uint8Array(1 << 20).fill(i));
  map.delete(Uint8Array.of(1));
  expect(map.get(Uint8Array.of(1))).toBeUndefined();
  expect(map.get(Uint8Array.of(2))).toEqual(Uint8Array.of(2));
  expect(Buffer.from(new Uint8Array(1 << 20).fill(39)).equals(map.get(Uint8Array.of(3))!)).toBe(true);
  expect((map as unknown as { chunks: Uint8Array[] }).chunks.length).toBeLessThanOrEqual(2);
});
