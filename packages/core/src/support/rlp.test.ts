import { RLP } from '@ethereumjs/rlp';
import fc from 'fast-check';

import { decodeRlp, encodeRlp } from './rlp';

// Byte strings of every length class: single bytes under and over 0x80, short (≤55) and long.
const bytes = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 2 }),
  fc.uint8Array({ minLength: 30, maxLength: 60 }),
  fc.uint8Array({ minLength: 250, maxLength: 300 }),
);
const { item } = fc.letrec((tie) => ({
  item: fc.oneof({ depthSize: 'small', maxDepth: 3 }, bytes, fc.array(tie('item'), { maxLength: 17 })),
}));

test('encodes and decodes as @ethereumjs/rlp', () => {
  fc.assert(
    fc.property(item, (value) => {
      const encoded = RLP.encode(value as never);
      expect(encodeRlp(value as never)).toEqual(encoded);
      expect(decodeRlp(encoded)).toEqual(RLP.decode(encoded));
    }),
    { numRuns: 200 },
  );
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
