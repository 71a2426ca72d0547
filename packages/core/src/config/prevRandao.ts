/**
 * PREVRANDAO as Linea's consensus client makes it (Consensys/linea-monorepo cb180134,
 * `maru/consensus/src/main/kotlin/maru/consensus/PrevRandaoProvider.kt`): the parent's value XOR the
 * keccak of the node key's signature (r, s, recovery id: 65 bytes) of the new block's number as a
 * 32-byte word. A dev chain signs with its own fixed node key, so its values repeat run after run.
 */
import { bigIntToBytes, setLengthLeft, utf8ToBytes } from '@ethereumjs/util';
import secp256k1 from 'secp256k1';

import { keccak256 } from './fastCrypto';

/** The dev chain's sequencer node key: keccak256("l2devnet sequencer node key"). */
let nodeKey: Uint8Array | undefined;

/** The keccak of the signature of each of the last few block numbers signed (a block's is the same on every chain). */
const mixes = new Map<bigint, Uint8Array>();
const KEPT_MIXES = 8;

/** keccak256 of the node key's signature of `number` (the part of PREVRANDAO that is not the parent's). */
function signedMix(number: bigint): Uint8Array {
  let mix = mixes.get(number);
  if (mix !== undefined) return mix;
  nodeKey ??= keccak256(utf8ToBytes('l2devnet sequencer node key'));
  const { signature, recid } = secp256k1.ecdsaSign(setLengthLeft(bigIntToBytes(number), 32), nodeKey);
  const encoded = new Uint8Array(65);
  encoded.set(signature);
  encoded[64] = recid;
  mix = keccak256(encoded);
  if (mixes.size >= KEPT_MIXES) mixes.delete(mixes.keys().next().value as bigint);
  mixes.set(number, mix);
  return mix;
}

export function lineaPrevRandao(parent: Uint8Array, number: bigint): Uint8Array {
  const mix = signedMix(number);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parent[i] ^ mix[i];
  return out;
}

/**
 * Signs `number` once the current task is done (a block just committed: its answer goes out
 * first), so the next block's header does not wait for the signature (~70 us).
 */
export function signAhead(number: bigint): void {
  if (!mixes.has(number)) setImmediate(() => signedMix(number));
}
