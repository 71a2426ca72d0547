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

export function lineaPrevRandao(parent: Uint8Array, number: bigint): Uint8Array {
  nodeKey ??= keccak256(utf8ToBytes('l2devnet sequencer node key'));
  const { signature, recid } = secp256k1.ecdsaSign(setLengthLeft(bigIntToBytes(number), 32), nodeKey);
  const encoded = new Uint8Array(65);
  encoded.set(signature);
  encoded[64] = recid;
  const mix = keccak256(encoded);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parent[i] ^ mix[i];
  return out;
}
