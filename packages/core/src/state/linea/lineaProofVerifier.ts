/**
 * An independent check of a `linea_getProof` answer against a Linea state root, from the proof's
 * bytes alone (Poseidon2 and the trie's layout, not the tries that made it), as a verifier on the L1
 * would: each leaf hashed up to the root its proof names; a present key's leaf holds the key's and
 * the value's hashes; an absent key lies between two leaves that are each other's neighbours. The
 * storage proofs are checked against the storage root in the proven account.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util';

import { accountKey, hashAccountValue, slotKey } from './lineaState';
import type { LineaAccountProof } from './lineaState';
import { poseidon2, poseidonSafe } from './poseidon2';
import { decodeLeaf, rootOfProof } from './sparseMerkleTrie';
import type { LineaKeyProof, LineaLeafProof } from './zkTrie';

export interface LineaProofReport {
  ok: boolean;
  accountExists: boolean;
  /** What failed, one line each. */
  failures: string[];
}

export function verifyLineaProof(proof: LineaAccountProof, stateRoot: Uint8Array): LineaProofReport {
  const failures: string[] = [];
  const account = proof.accountProof;
  checkKey(account, stateRoot, accountKey(account.key), { length: 192, hash: hashAccountValue }, 'account', failures);
  const accountExists = 'leafIndex' in account;
  if (accountExists) {
    const storageRoot = account.proof.value.subarray(64, 96);
    for (const s of proof.storageProofs)
      checkKey(s, storageRoot, slotKey(s.key), SLOT_VALUE, `slot ${bytesToHex(s.key)}`, failures);
  } else if (proof.storageProofs.length > 0) failures.push('storage proofs for an account that does not exist');
  return { ok: failures.length === 0, accountExists, failures };
}

/** A leaf's value: its length (an account's 192 bytes, a slot's 32) and how its leaf hashes it. */
interface ValueShape {
  length: number;
  hash: (value: Uint8Array) => Uint8Array;
}
const SLOT_VALUE: ValueShape = { length: 32, hash: (v) => poseidon2(poseidonSafe(v)) };

function checkKey(
  p: LineaKeyProof,
  root: Uint8Array,
  hKey: Uint8Array,
  value: ValueShape,
  what: string,
  failures: string[],
): void {
  if ('leafIndex' in p) {
    const leaf = checkLeaf(p.proof, p.leafIndex, root, what, failures);
    if (leaf === undefined) return;
    if (!equalsBytes(leaf.hKey, hKey)) failures.push(`${what}: the leaf holds another key`);
    if (p.proof.value.length !== value.length) failures.push(`${what}: the value is not well formed`);
    else if (!equalsBytes(leaf.hValue, value.hash(p.proof.value)))
      failures.push(`${what}: the leaf holds another value`);
    return;
  }
  const left = checkLeaf(p.leftProof, p.leftLeafIndex, root, `${what} (left neighbour)`, failures);
  const right = checkLeaf(p.rightProof, p.rightLeafIndex, root, `${what} (right neighbour)`, failures);
  if (left === undefined || right === undefined) return;
  if (!(Buffer.compare(left.hKey, hKey) < 0 && Buffer.compare(hKey, right.hKey) < 0))
    failures.push(`${what}: the key does not lie between the two neighbours`);
  if (left.next !== p.rightLeafIndex || right.prev !== p.leftLeafIndex)
    failures.push(`${what}: the two neighbours are not adjacent`);
}

/** The leaf of a proof that leads to `root` at `index`; undefined (with the failure) otherwise. */
function checkLeaf(proof: LineaLeafProof, index: number, root: Uint8Array, what: string, failures: string[]) {
  const nodes = proof.proofRelatedNodes;
  if (
    nodes.length !== 42 ||
    nodes[41].length !== 192 ||
    !Number.isSafeInteger(index) ||
    index < 0 ||
    index >= 2 ** 40
  ) {
    failures.push(`${what}: the proof is not well formed`);
    return undefined;
  }
  const computed = rootOfProof({ top: nodes[0], siblings: nodes.slice(1, 41), leaf: nodes[41] }, index);
  if (computed === undefined || !equalsBytes(computed, root)) {
    failures.push(`${what}: the proof does not lead to the root`);
    return undefined;
  }
  return decodeLeaf(nodes[41]);
}
