/**
 * An independent Merkle-Patricia proof verifier for tests: it uses only RLP decoding and keccak, not
 * the trie implementation that produced the proof.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

function nibbles(key: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of key) out.push(b >> 4, b & 15);
  return out;
}

/** The value at keccak(key) in the trie with root `root`, or undefined if the proof shows it absent. Throws if the proof is invalid. */
export function verifyProof(root: string, key: Uint8Array, proof: string[]): Uint8Array | undefined {
  // The empty trie has no nodes to show.
  if (proof.length === 0 && root === EMPTY_TRIE_ROOT) return undefined;
  const path = nibbles(keccak256(key));
  let expected = hexToBytes(root as `0x${string}`);
  let i = 0;
  for (const [n, hex] of proof.entries()) {
    const node = hexToBytes(hex as `0x${string}`);
    const ok = node.length < 32 && n > 0 ? true : bytesToHex(keccak256(node)) === bytesToHex(expected);
    if (!ok) throw new Error(`proof node ${n} does not hash to the expected reference`);
    const decoded = RLP.decode(node) as unknown as (Uint8Array | Uint8Array[])[];
    let next: Uint8Array | Uint8Array[];
    if (decoded.length === 17) {
      if (i === path.length) return (decoded[16] as Uint8Array).length === 0 ? undefined : (decoded[16] as Uint8Array);
      next = decoded[path[i++]];
    } else if (decoded.length === 2) {
      const encodedPath = nibbles(decoded[0] as Uint8Array);
      const isLeaf = encodedPath[0] >= 2;
      const rest = encodedPath[0] % 2 === 1 ? encodedPath.slice(1) : encodedPath.slice(2);
      const matches = rest.every((nb, j) => path[i + j] === nb);
      if (!matches) return undefined;
      i += rest.length;
      if (isLeaf) return i === path.length ? (decoded[1] as Uint8Array) : undefined;
      next = decoded[1];
    } else {
      throw new Error(`proof node ${n} is neither a branch nor an extension/leaf`);
    }
    if (Array.isArray(next)) throw new Error('embedded nodes are not expected in these proofs');
    if (next.length === 0) return undefined;
    expected = next;
  }
  throw new Error('proof ended before reaching a value or an absence');
}
