import { bigIntToBytes, setLengthLeft, utf8ToBytes } from '@ethereumjs/util';
import secp256k1 from 'secp256k1';

import { initFastCrypto, keccak256 } from './fastCrypto';
import { lineaPrevRandao, signAhead } from './prevRandao';

/** PrevRandaoProvider.kt's value, worked out here from the node key: parent XOR keccak(signature of the number). */
function expected(parent: Uint8Array, number: bigint): Uint8Array {
  const key = keccak256(utf8ToBytes('l2devnet sequencer node key'));
  const { signature, recid } = secp256k1.ecdsaSign(setLengthLeft(bigIntToBytes(number), 32), key);
  const mix = keccak256(Uint8Array.from([...signature, recid]));
  return parent.map((b, i) => b ^ mix[i]);
}

const parent = Uint8Array.from({ length: 32 }, (_, i) => i * 7);

beforeAll(() => initFastCrypto());
afterEach(() => jest.restoreAllMocks());

test("PREVRANDAO is the parent's XOR the keccak of the node key's signature of the block number", () => {
  for (const number of [1n, 2n, 255n, 256n, 1n << 40n])
    expect(lineaPrevRandao(parent, number)).toEqual(expected(parent, number));
  // Another parent, the same number: the signature is the number's alone.
  const other = new Uint8Array(32).fill(0xff);
  expect(lineaPrevRandao(other, 2n)).toEqual(expected(other, 2n));
});

test('a number signed ahead (after a block, for the next) is not signed again when its header is made', async () => {
  const sign = jest.spyOn(secp256k1, 'ecdsaSign');
  signAhead(1000n);
  expect(sign).not.toHaveBeenCalled(); // once the current task is done, not within it
  await new Promise((resolve) => setImmediate(resolve));
  expect(sign).toHaveBeenCalledTimes(1);
  expect(lineaPrevRandao(parent, 1000n)).toEqual(expected(parent, 1000n));
  expect(sign).toHaveBeenCalledTimes(2); // expected()'s own
  // Signed ahead already: no second signature is queued.
  signAhead(1000n);
  await new Promise((resolve) => setImmediate(resolve));
  expect(sign).toHaveBeenCalledTimes(2);
});

test('the kept signatures are bounded and each stays its own number', () => {
  const values = Array.from({ length: 40 }, (_, i) => lineaPrevRandao(parent, BigInt(2000 + i)));
  values.forEach((v, i) => expect(v).toEqual(expected(parent, BigInt(2000 + i))));
  // The first of them was dropped from the kept ones: signed again, to the same value.
  const sign = jest.spyOn(secp256k1, 'ecdsaSign');
  expect(lineaPrevRandao(parent, 2000n)).toEqual(values[0]);
  expect(sign).toHaveBeenCalledTimes(1);
});
