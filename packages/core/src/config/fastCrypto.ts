/**
 * Faster primitives for ethereumjs, plugged in through Common's `customCrypto`:
 *  - signature recovery and signing through libsecp256k1 (the `secp256k1` package's prebuilt native
 *    binding): recovering a sender is ~40× cheaper than the pure-JS default, and every transaction
 *    needs it;
 *  - keccak-256 through hash-wasm's WebAssembly build: ~10× cheaper than the pure-JS default on
 *    trie-node-sized inputs; trie hashing is a large share of block building;
 *  - KZG (blob transactions), loaded at first use (see kzg.ts).
 * `initFastCrypto()` must have resolved before the first hash (Chain.create awaits it).
 */
import type { CustomCrypto } from '@ethereumjs/common';
import { setLengthLeft } from '@ethereumjs/util';
import { createKeccak } from 'hash-wasm';
import secp256k1 from 'secp256k1';

import { lazyKzg } from './kzg';

type Hasher = Awaited<ReturnType<typeof createKeccak>>;
let keccakHasher: Hasher | undefined;
// Compiling the WebAssembly starts as soon as this module loads and goes on in the background.
const ready = createKeccak(256).then((h) => {
  keccakHasher = h;
});

export function initFastCrypto(): Promise<void> {
  return ready;
}

/** keccak-256 through hash-wasm; also usable once `initFastCrypto()` has resolved. */
export function keccak256(msg: Uint8Array): Uint8Array {
  const h = keccakHasher as Hasher;
  h.init();
  h.update(msg);
  return h.digest('binary');
}

/** As @ethereumjs/util's calculateSigRecovery: typed transactions carry the parity itself (0 or 1). */
function recoveryId(v: bigint, chainId: bigint | undefined): number {
  const id = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (2n * chainId + 35n);
  if (id !== 0n && id !== 1n) throw new Error('Invalid signature v value');
  return Number(id);
}

export const fastCrypto: CustomCrypto = {
  keccak256,
  kzg: lazyKzg,
  ecrecover(msgHash, v, r, s, chainId) {
    const sig = new Uint8Array(64);
    sig.set(setLengthLeft(r, 32), 0);
    sig.set(setLengthLeft(s, 32), 32);
    return secp256k1.ecdsaRecover(sig, recoveryId(v, chainId), msgHash, false).subarray(1);
  },
  ecdsaRecover(sig, recId, hash) {
    return secp256k1.ecdsaRecover(sig, recId, hash, false);
  },
  // Returns noble's 'recovered' layout (recovery id, r, s), which is what ethereumjs parses.
  ecsign: ((msgHash: Uint8Array, privateKey: Uint8Array) => {
    const { signature, recid } = secp256k1.ecdsaSign(msgHash, privateKey);
    const out = new Uint8Array(65);
    out[0] = recid;
    out.set(signature, 1);
    return out;
  }) as unknown as CustomCrypto['ecsign'],
};
