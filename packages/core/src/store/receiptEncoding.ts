/**
 * A receipt in its consensus encoding (EIP-2718): `type ‖ RLP([status or root, cumulativeGasUsed,
 * logsBloom, logs])`, the type byte left out for legacy receipts. These are the leaves of a block's
 * receipts trie, and what debug_getRawReceipts returns.
 */
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, concatBytes } from '@ethereumjs/util';

import type { Receipt } from '../types';

export function encodeReceipt(r: Receipt): Uint8Array {
  const body = RLP.encode([
    r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array()),
    bigIntToUnpaddedBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((log) => [log.address, log.topics, log.data]),
  ]);
  return r.type === 0 ? body : concatBytes(Uint8Array.of(r.type), body);
}
