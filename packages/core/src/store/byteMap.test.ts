import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

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

describe('past its memory limit', () => {
  const chunkBytes = 64;

  test('answers as a Map does, its oldest buffers in a file, over any sequence of sets, overwrites and deletes', () => {
    const key = fc.uint8Array({ minLength: 1, maxLength: 3, max: 7 });
    const op = fc.oneof(fc.record({ set: key, value: fc.uint8Array({ maxLength: 40 }) }), fc.record({ del: key }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 0, max: 4096 }), (ops, memoryLimit) => {
        const map = new ByteMap({ chunkBytes, memoryLimit });
        const model = new Map<string, Uint8Array>();
        try {
          for (const o of ops) {
            if ('set' in o) {
              map.set(o.set, o.value);
              model.set(hex(o.set), o.value);
            } else {
              map.delete(o.del);
              model.delete(hex(o.del));
            }
          }
          expect(map.size).toBe(model.size);
          for (let n = 0; n < 8 ** 3; n++)
            for (const k of [Uint8Array.of(n & 7), Uint8Array.of(n & 7, n >> 3), Uint8Array.of(n & 7, n >> 3, n >> 6)])
              expect(map.get(k)).toEqual(model.get(hex(k)));
        } finally {
          map.close();
        }
      }),
      { numRuns: 50 },
    );
  });

  test('keeps its buffers and index under the limit, the rest in a file no directory shows', () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('l2devnet-rows-'));
    const map = new ByteMap({ chunkBytes: 1 << 16, memoryLimit: 1 << 20 });
    const value = new Uint8Array(300);
    const key = new Uint8Array(32);
    for (let i = 0; i < 20_000; i++) {
      new DataView(key.buffer).setUint32(0, i);
      value.fill(i & 255);
      map.set(key, value);
    }
    // 6 MB written, 1 MB kept.
    expect(map.bytes).toBeLessThanOrEqual(1 << 20);
    for (const i of [0, 1, 9_999, 19_999]) {
      new DataView(key.buffer).setUint32(0, i);
      expect(map.get(key)).toEqual(new Uint8Array(300).fill(i & 255));
    }
    // Written over and deleted while in the file: the file's copy is not read again.
    new DataView(key.buffer).setUint32(0, 1);
    map.set(key, Uint8Array.of(1));
    expect(map.get(key)).toEqual(Uint8Array.of(1));
    new DataView(key.buffer).setUint32(0, 2);
    map.delete(key);
    expect(map.get(key)).toBeUndefined();
    expect(map.size).toBe(19_999);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('l2devnet-rows-'))).toEqual(before);
    map.close();
  });

  test('a compaction keeps what is in the file there', () => {
    const map = new ByteMap({ chunkBytes: 1 << 12, memoryLimit: 1 << 17 });
    for (let i = 0; i < 3000; i++) map.set(Uint8Array.of(1, i & 255, i >> 8), new Uint8Array(100).fill(i & 255));
    // One key written over until the dead bytes are most of memory: compacted, more than once.
    const compact = jest.spyOn(map as unknown as { compact(): void }, 'compact');
    for (let i = 0; i < 2000; i++) map.set(Uint8Array.of(2), new Uint8Array(100).fill(i & 255));
    expect(compact.mock.calls.length).toBeGreaterThan(1);
    expect(map.bytes).toBeLessThanOrEqual(1 << 17);
    for (let i = 0; i < 3000; i++)
      expect(map.get(Uint8Array.of(1, i & 255, i >> 8))).toEqual(new Uint8Array(100).fill(i & 255));
    expect(map.get(Uint8Array.of(2))).toEqual(new Uint8Array(100).fill(1999 & 255));
    map.close();
  });

  test('keeps everything in memory, with a warning, when no temporary file can be made', () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const map = new ByteMap({ chunkBytes: 64, memoryLimit: 0, fileDir: '/nonexistent/l2devnet' });
      for (let i = 0; i < 100; i++) map.set(Uint8Array.of(i), new Uint8Array(40).fill(i));
      for (let i = 0; i < 100; i++) expect(map.get(Uint8Array.of(i))).toEqual(new Uint8Array(40).fill(i));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(
        /^l2devnet: the chain's rows past the memory limit cannot be written to a temporary file, so they stay in memory \(ENOENT/,
      );
      map.close();
    } finally {
      warn.mockRestore();
    }
  });
});
