import { paddedWordOf, wordBytes, wordOf } from './world';

/** Byte at a time, as the definitions read. */
const slowWordOf = (bytes: Uint8Array) => bytes.reduce((v, b) => (v << 8n) | BigInt(b), 0n);

test('wordOf reads any run of bytes big-endian, and wordBytes writes a value back as 32 bytes', () => {
  let seed = 11;
  const byte = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed & 0xff;
  };
  const buffer = Uint8Array.from({ length: 64 }, byte);
  for (let from = 0; from < 8; from++)
    for (let to = from; to <= from + 32; to++)
      expect(wordOf(buffer, from, to)).toBe(slowWordOf(buffer.subarray(from, to)));
  const edges = [0n, 1n, 0xffn, 0x100n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 255n, 2n ** 256n - 1n, 0x0f00n];
  for (let i = 0; i < 200; i++) edges.push(slowWordOf(Uint8Array.from({ length: 1 + (i % 32) }, byte)));
  for (const v of edges) {
    const word = wordBytes(v);
    expect(word.length).toBe(32);
    expect(slowWordOf(word)).toBe(v);
    expect(wordOf(word)).toBe(v);
  }
});

test('paddedWordOf reads past the end of its bytes as zeros (PUSH at the end of code, CALLDATALOAD)', () => {
  const bytes = Uint8Array.from({ length: 40 }, (_, i) => (i * 37 + 5) & 0xff);
  for (let from = 0; from <= 44; from++)
    for (const size of [1, 2, 7, 20, 32]) {
      const padded = new Uint8Array(size);
      padded.set(bytes.subarray(from, from + size));
      expect(paddedWordOf(bytes, from, size)).toBe(slowWordOf(padded));
    }
});
