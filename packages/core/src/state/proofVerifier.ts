/**
 * Checks an EIP-1186 proof (an eth_getProof answer, from this node or any other) against a state
 * root: the account proof from the root to the account (or to its absence), the account's fields
 * against the leaf, and every storage proof from the account's storage root to its slot. Only RLP
 * and keccak are used, not the trie that made the proof, so a faulty trie cannot vouch for itself.
 * Each failure names the proof, the node and what did not hold.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';

import { keccak256 } from 'ethereum-cryptography/keccak';
import type { AccountProof } from '../types';

export interface ProofReport {
  /** True when every proof holds and every claimed value is what the proofs show. */
  ok: boolean;
  /** One line per thing that did not hold, naming the proof and node. */
  failures: string[];
  /** Whether the account exists under the root, as far as the account proof shows. */
  accountExists: boolean;
}

/** Why a walk through a proof stopped: the value found, or the absence shown. */
type Walk = { value: Uint8Array | undefined } | { failure: string };

function nibbles(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of bytes) out.push(b >> 4, b & 15);
  return out;
}

/**
 * Follows `proof` from `root` along keccak(key); the value at its end, undefined for a proven
 * absence, or why the proof does not hold.
 */
function walk(root: Uint8Array, key: Uint8Array, proof: Uint8Array[]): Walk {
  if (proof.length === 0) {
    return equalsBytes(root, KECCAK256_RLP)
      ? { value: undefined }
      : { failure: 'is empty, but the root is not the empty trie' };
  }
  const path = nibbles(keccak256(key));
  let reference: Uint8Array = root;
  let depth = 0;
  for (const [n, node] of proof.entries()) {
    // Nodes under 32 bytes are embedded in their parent, not referenced by hash (root excepted).
    const hashed = n === 0 || node.length >= 32;
    const matches = hashed ? equalsBytes(keccak256(node), reference) : equalsBytes(node, reference);
    if (!matches) {
      return {
        failure: `node ${n} does not ${hashed ? 'hash to' : 'equal'} the reference ${n === 0 ? '(the root)' : `in node ${n - 1}`} ${bytesToHex(reference)}`,
      };
    }
    let decoded: unknown;
    try {
      decoded = RLP.decode(node);
    } catch (e) {
      return { failure: `node ${n} is not RLP: ${(e as Error).message}` };
    }
    if (!Array.isArray(decoded)) return { failure: `node ${n} is not a list` };
    let next: unknown;
    if (decoded.length === 17) {
      if (depth === path.length) {
        const value = decoded[16] as Uint8Array;
        return { value: value.length === 0 ? undefined : value };
      }
      next = decoded[path[depth++]];
    } else if (decoded.length === 2) {
      const encoded = nibbles(decoded[0] as Uint8Array);
      const isLeaf = encoded[0] >= 2;
      const rest = encoded[0] % 2 === 1 ? encoded.slice(1) : encoded.slice(2);
      if (!rest.every((nibble, j) => path[depth + j] === nibble)) return { value: undefined }; // diverges: absent
      depth += rest.length;
      if (isLeaf) {
        if (depth !== path.length) return { value: undefined };
        if (n !== proof.length - 1)
          return { failure: `node ${n} is a leaf, but ${proof.length - 1 - n} nodes follow it` };
        return { value: decoded[1] as Uint8Array };
      }
      next = decoded[1];
    } else {
      return { failure: `node ${n} has ${decoded.length} items: neither a branch (17) nor an extension or leaf (2)` };
    }
    // An embedded child node: its reference is its own encoding.
    const child = Array.isArray(next) ? RLP.encode(next as Uint8Array[]) : (next as Uint8Array);
    if (child.length === 0) {
      return n === proof.length - 1
        ? { value: undefined }
        : { failure: `node ${n} shows the key absent, but ${proof.length - 1 - n} nodes follow it` };
    }
    reference = child;
  }
  return { failure: `ends after node ${proof.length - 1}, before reaching the key or its absence` };
}

/** Checks `proof` against `stateRoot`; see ProofReport. */
export function verifyAccountProof(proof: AccountProof, stateRoot: Uint8Array): ProofReport {
  const failures: string[] = [];
  const account = walk(stateRoot, proof.address, proof.accountProof);
  let exists = false;
  // The claimed storage root, unless the account proof shows another.
  let storageRoot = proof.storageHash;
  if ('failure' in account) {
    failures.push(`account proof: ${account.failure}`);
  } else {
    const claimed = {
      nonce: proof.nonce,
      balance: proof.balance,
      storageHash: bytesToHex(proof.storageHash),
      codeHash: bytesToHex(proof.codeHash),
    };
    let shown = {
      nonce: 0n,
      balance: 0n,
      storageHash: bytesToHex(KECCAK256_RLP),
      codeHash: bytesToHex(KECCAK256_NULL),
    };
    if (account.value !== undefined) {
      exists = true;
      const fields = RLP.decode(account.value) as Uint8Array[];
      shown = {
        nonce: bytesToBigInt(fields[0]),
        balance: bytesToBigInt(fields[1]),
        storageHash: bytesToHex(fields[2]),
        codeHash: bytesToHex(fields[3]),
      };
      storageRoot = fields[2];
    } else {
      storageRoot = KECCAK256_RLP;
    }
    for (const field of ['nonce', 'balance', 'storageHash', 'codeHash'] as const) {
      if (claimed[field] !== shown[field]) {
        failures.push(
          `account ${field}: the answer says ${String(claimed[field])}, the proof shows ${String(shown[field])}${exists ? '' : ' (the account is absent)'}`,
        );
      }
    }
  }
  proof.storageProof.forEach((slot, i) => {
    const what = `storage proof ${i} (key ${bytesToHex(slot.key)})`;
    const found = walk(storageRoot, slot.key, slot.proof);
    if ('failure' in found) {
      failures.push(`${what}: ${found.failure}`);
      return;
    }
    const value = found.value === undefined ? 0n : bytesToBigInt(RLP.decode(found.value) as Uint8Array);
    if (value !== slot.value) failures.push(`${what}: the answer says ${slot.value}, the proof shows ${value}`);
  });
  return { ok: failures.length === 0, failures, accountExists: exists };
}
