/**
 * The pool's rows in the database: every transaction the node acknowledged but has not mined yet,
 * so a restart resumes with it. Key `'p' ‖ tx hash`, value `sender ‖ raw transaction` (the sender
 * is kept because an impersonated one cannot be recovered from the signature).
 */
import { concatBytes } from '@ethereumjs/util';

import type { KvOp } from '../store/kvStore';
import type { PoolTx } from './txPool';

const P_POOL = 0x70; // 'p'

/** The key range that holds every pool row. */
export const POOL_ROWS: readonly [Uint8Array, Uint8Array] = [Uint8Array.of(P_POOL), Uint8Array.of(P_POOL + 1)];

export function poolKey(hash: Uint8Array): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = P_POOL;
  key.set(hash, 1);
  return key;
}

/** A pool row: the sender and the raw transaction. */
export function poolRow(ptx: PoolTx): Uint8Array {
  return concatBytes(ptx.sender, ptx.tx.serialize());
}

export function putPoolRow(ptx: PoolTx): KvOp {
  return { type: 'put', key: poolKey(ptx.hash), value: poolRow(ptx) };
}

export function delPoolRow(hash: Uint8Array): KvOp {
  return { type: 'del', key: poolKey(hash) };
}
