/**
 * Signing with the dev accounts' keys, as Anvil signs (crates/anvil/src/eth/api.rs, sign.rs):
 * eth_sign and personal_sign (an EIP-191 message), eth_signTypedData_v4 (EIP-712), and
 * eth_signTransaction (the transaction eth_sendTransaction would send, signed and not sent). An
 * address the node holds no key for, impersonated ones included, is refused as an unknown account.
 */
import { concatBytes, utf8ToBytes } from '@ethereumjs/util';
import { UnknownAccountError } from '@l2devnet/core';
import type { Chain } from '@l2devnet/core';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { hex } from '../format';
import type { Method } from '../method';
import { method, required } from '../method';
import { address, callObject, data } from '../params';
import { parseTypedData, typedDataDigest } from '../typedData';
import { buildTransaction } from './transactions';

/** EIP-191 version 0x45: keccak256("\x19Ethereum Signed Message:\n" ‖ length ‖ message). */
function messageDigest(message: Uint8Array): Uint8Array {
  return keccak256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${message.length}`), message));
}

function signWith(chain: Chain, from: Uint8Array, digest: Uint8Array): string {
  const signature = chain.txs.signDigest(from, digest);
  if (signature === undefined) throw new UnknownAccountError(from);
  return hex(signature);
}

export const signingMethods: Record<string, Method> = {
  /** eth_sign(address, data): the EIP-191 signature of `data`. */
  'eth_sign': method([required('address', address), required('data', data)], ({ chain }, from, message) =>
    signWith(chain, from, messageDigest(message)),
  ),
  /** personal_sign(data, address): eth_sign with its params the other way round. */
  'personal_sign': method([required('data', data), required('address', address)], ({ chain }, message, from) =>
    signWith(chain, from, messageDigest(message)),
  ),
  /** eth_signTypedData_v4(address, typedData): the EIP-712 signature (typed data as an object or its JSON). */
  'eth_signTypedData_v4': method(
    [required('address', address), required('typedData', (v) => parseTypedData(v))],
    ({ chain }, from, typed) => signWith(chain, from, typedDataDigest(typed)),
  ),
  /** eth_signTransaction(request): filled as eth_sendTransaction fills it, signed, not sent; the raw bytes. */
  'eth_signTransaction': method([required('transaction', callObject())], async (ctx, req) => {
    // Without `from`, the first dev account signs, as Anvil.
    const from = req.from ?? ctx.chain.accounts[0]?.address ?? new Uint8Array(20);
    const key = ctx.chain.txs.keyOf(from);
    if (key === undefined) throw new UnknownAccountError(from);
    const tx = await buildTransaction(ctx, { ...req, from }, await ctx.chain.reads.pendingNonce(from));
    return hex(tx.sign(key).serialize());
  }),
};
