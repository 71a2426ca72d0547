/**
 * l2_decodeTransaction: a mined transaction's call and events decoded with the ABIs of --artifacts
 * (Foundry's out/ or Hardhat's artifacts/), selectors and raw topics otherwise, as the printed
 * traces show them. Added to the RPC's method table by the node, which holds the artifacts; the
 * page's transaction view reads it.
 */
import { bytesToHex } from '@ethereumjs/util';
import type { Chain } from '@l2devnet/core';
import { method, params, required } from '@l2devnet/rpc';
import type { Method } from '@l2devnet/rpc';

import type { Decoder } from './traces';

export function decodeMethods(chain: Chain, decoderOf: () => Decoder): Record<string, Method> {
  return {
    /** l2_decodeTransaction(hash): `{ contract, call, events }`; null for a transaction not mined. */
    l2_decodeTransaction: method([required('transactionHash', params.hash)], async (_ctx, h) => {
      const decoder = decoderOf();
      const found = await chain.reads.getReceipt(h);
      if (found === undefined) return null;
      const tx = found.block.transactions[found.index];
      const receipts = (await chain.reads.getReceipts(found.block.header.number)) ?? [];
      const receipt = receipts[found.index];
      const input = bytesToHex(tx.data);
      const code = tx.to === undefined ? undefined : await chain.reads.getCode(tx.to.bytes, found.block.header.number);
      return {
        contract: code === undefined ? null : (decoder.contractOf(bytesToHex(code)) ?? null),
        call: tx.to === undefined ? 'create' : decoder.call(input),
        events: receipt.logs.map((log) =>
          decoder.event({ topics: log.topics.map((t) => bytesToHex(t)), data: bytesToHex(log.data) }),
        ),
      };
    }),
  };
}
