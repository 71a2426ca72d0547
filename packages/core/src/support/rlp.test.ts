import { RLP } from '@ethereumjs/rlp';
import fc from 'fast-check';

import { decodeRlp } from './rlp';

// Byte strings of every length class: single bytes under and over 0x80, short (≤55) and long.
const bytes = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 2 }),
  fc.uint8Array({ minLength: 30, maxLength: 60 }),
  fc.uint8Array({ minLength: 250, maxLength: 300 }),
);
const { item } = fc.letrec((tie) => ({
  item: fc.oneof({ depthSize: 'small', maxDepth: 3 }, bytes, fc.array(tie('item'), { maxLength: 17 })),
}));

type Item = Uint8Array | Item[];

/** RLP as the Yellow Paper defines it (appendix B), one concatenation per item: the reference. */
function specEncode(item: Item): Uint8Array {
  const header = (length: number, offset: number) => {
    if (length < 56) return Uint8Array.of(offset + length);
    const big: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) big.unshift(n % 256);
    return Uint8Array.of(offset + 55 + big.length, ...big);
  };
  if (item instanceof Uint8Array)
    return item.length === 1 && item[0] < 0x80 ? item : Buffer.concat([header(item.length, 0x80), item]);
  const payload = Buffer.concat(item.map(specEncode));
  return Buffer.concat([header(payload.length, 0xc0), payload]);
}

test("@ethereumjs/rlp's encode, patched to write into one array, gives the specification's bytes; decodes as it", () => {
  fc.assert(
    fc.property(item, (value) => {
      const encoded = RLP.encode(value as never);
      expect(Buffer.from(encoded).equals(specEncode(value as Item))).toBe(true);
      expect(decodeRlp(encoded)).toEqual(RLP.decode(encoded));
    }),
    { numRuns: 200 },
  );
  // The scalars it also takes, as the wiki's examples encode them.
  const hex = (v: unknown) => Buffer.from(RLP.encode(v as never)).toString('hex');
  expect([hex('dog'), hex(['cat', 'dog']), hex(''), hex([]), hex(0), hex(15), hex(1024n), hex(null)]).toEqual([
    '83646f67',
    'c88363617483646f67',
    '80',
    'c0',
    '80',
    '0f',
    '820400',
    '80',
  ]);
  expect(hex([[], [[]], [[], [[]]]])).toBe('c7c0c1c0c3c0c1c0');
});

test('refuses what @ethereumjs/rlp refuses, and reads the rest alike', () => {
  const answer = (f: () => unknown) => {
    try {
      return f();
    } catch {
      return 'refused';
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 70 }), (input) => {
      expect(answer(() => decodeRlp(input))).toEqual(answer(() => RLP.decode(input)));
    }),
    { numRuns: 20000 },
  );
  // Non-canonical forms: a single byte with a header, a long form for a short length, a leading zero.
  for (const hex of ['8105', 'b80105', 'b900380102', 'f80100'])
    expect(() => decodeRlp(Uint8Array.from(Buffer.from(hex, 'hex')))).toThrow(/invalid RLP/);
});
