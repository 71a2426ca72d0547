/** A signed transaction's sender, as the node recovers it, is the one ethereumjs recovers. */
import { createTx, TransactionType } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';

import { devCommon } from '../config/genesis';
import { initFastCrypto } from '../config/fastCrypto';
import { senderOf } from './txCodec';

test('senderOf: the address ethereumjs gives, for every type of signed transaction', async () => {
  await initFastCrypto();
  const common = devCommon(59144n, 'prague');
  const keys = [1, 2, 0xfe].map((k) => new Uint8Array(32).fill(k));
  const fields = { nonce: 1n, gasLimit: 50_000n, to: new Uint8Array(20).fill(7), value: 3n, data: Uint8Array.of(1, 2) };
  const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
  const types = [
    { type: TransactionType.Legacy, gasPrice: 10n },
    { type: TransactionType.AccessListEIP2930, gasPrice: 10n, accessList: [] },
    { type: TransactionType.FeeMarketEIP1559, ...fees },
  ];
  for (const key of keys)
    for (const t of types) {
      const tx = createTx({ ...fields, ...t }, { common }).sign(key);
      expect(bytesToHex(senderOf(tx))).toBe(tx.getSenderAddress().toString());
    }
  // A legacy transaction without a chain id (before EIP-155).
  const unprotected = createTx({ ...fields, gasPrice: 10n, type: 0 }, { common: devCommon(59144n, 'homestead') }).sign(
    keys[0],
  );
  expect(bytesToHex(senderOf(unprotected))).toBe(unprotected.getSenderAddress().toString());
});
