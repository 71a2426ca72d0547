/**
 * The profitability verdict (sequencerRules.ts, profitability.ts) taken from the compressed-size
 * bound without compressing is the one the compressed size gives.
 */
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import fc from 'fast-check';

import { devCommon } from '../config/genesis';
import {
  compressedSize,
  compressedSizeBound,
  compressorInput,
  payingGasPrice,
  profitablePriorityFee,
} from './profitability';
import { LINEA_MAINNET_RULES, SequencerRules } from './sequencerRules';

const common = devCommon(59144n, 'prague');
const SENDER = new Uint8Array(20).fill(0x42);
const TO = new Uint8Array(20).fill(0x11);

test('no input compresses to more than the bound for its length', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ min: 0, max: 3, maxLength: 3000 })),
      (input) => compressedSize(input) <= compressedSizeBound(input.length),
    ),
  );
  // Random bytes do not compress: the bound is their size.
  const random = Uint8Array.from({ length: 500 }, (_, i) => (i * 7919 + ((i * i) % 251)) & 0xff);
  expect(compressedSize(random)).toBe(compressedSizeBound(random.length));
});

test("a transaction's verdict is the one its compressed size gives, at fees around the bound's and its own", () => {
  const margin = LINEA_MAINNET_RULES.txPoolMinMargin;
  const { pricing } = LINEA_MAINNET_RULES;
  const baseFee = 7n;
  let belowBoundAboveOwn = 0;
  for (const data of [
    new Uint8Array(0),
    new Uint8Array(4000),
    Uint8Array.from({ length: 400 }, (_, i) => (i * 37) & 0xff),
  ])
    for (const gasLimit of [21_000n, 100_000n, 1_000_000n]) {
      const make = (price: bigint) => [
        createLegacyTx({ nonce: 1n, gasPrice: price, gasLimit, to: TO, data }, { common }),
        createFeeMarket1559Tx(
          { chainId: 59144n, nonce: 1n, maxFeePerGas: price, maxPriorityFeePerGas: price, gasLimit, to: TO, data },
          { common },
        ),
      ];
      const input = compressorInput(make(1n)[0], SENDER);
      const own = profitablePriorityFee(pricing, margin, gasLimit, compressedSize(input));
      const atBound = profitablePriorityFee(pricing, margin, gasLimit, compressedSizeBound(input.length));
      for (const fee of [own - 1n, own, own + 1n, atBound - 1n, atBound, atBound + 1n])
        for (const tx of make(baseFee + fee)) {
          // New rules each time: none has the size of this transaction kept.
          const verdict = new SequencerRules(LINEA_MAINNET_RULES).profitable(tx, SENDER, baseFee, margin, gasLimit);
          const size = compressedSize(compressorInput(tx, SENDER));
          const expected =
            payingGasPrice(tx, baseFee) >= baseFee + profitablePriorityFee(pricing, margin, gasLimit, size);
          expect(verdict).toBe(expected);
          if (expected && fee < atBound) belowBoundAboveOwn++;
        }
    }
  // The verdicts that needed the compressed size were among those checked.
  expect(belowBoundAboveOwn).toBeGreaterThan(0);
});
