/**
 * Signed transactions as they arrive: the raw fields checked before ethereumjs constructs one (so each
 * refusal is a typed error, not ethereumjs's text), ethereumjs's refusals in its own words without the
 * dump it appends, and impersonated senders.
 */
import { RLP } from '@ethereumjs/rlp';
import { TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToBigInt, concatBytes } from '@ethereumjs/util';

import { keccak256 } from '../config/fastCrypto';
import { InvalidTransactionError } from '../errors';

/**
 * The sender of a signed transaction: the address of the public key its signature recovers (which
 * the transaction keeps), hashed by the node's keccak. ethereumjs's getSenderAddress hashes the key
 * again in plain JavaScript on every call (~15 µs).
 */
export function senderOf(tx: TypedTransaction): Uint8Array {
  return keccak256(tx.getSenderPublicKey()).subarray(12);
}

/** The fields of a raw transaction that are checked before ethereumjs constructs it. */
export interface PeekedTransaction {
  type: number;
  chainId?: bigint;
  gasLimit: bigint;
  maxFee: bigint;
  maxTip: bigint;
  /** A blob transaction in its network form: [transaction, (version,) blobs, commitments, proofs]. */
  sidecar?: boolean;
}

export function peekTransaction(raw: Uint8Array): PeekedTransaction {
  if (raw.length === 0) throw new InvalidTransactionError('empty payload');
  let fields: Uint8Array[];
  const type = raw[0] >= 0xc0 ? 0 : raw[0];
  if (type > 0x7f) throw new InvalidTransactionError(`unknown transaction envelope 0x${type.toString(16)}`);
  try {
    fields = RLP.decode(type === 0 ? raw : raw.subarray(1)) as Uint8Array[];
  } catch (e) {
    throw new InvalidTransactionError(`rlp: ${(e as Error).message}`);
  }
  const sidecar = type === TransactionType.BlobEIP4844 && Array.isArray(fields) && Array.isArray(fields[0]);
  if (sidecar) fields = fields[0] as unknown as Uint8Array[];
  if (!Array.isArray(fields) || fields.some((f, i) => i < 5 && !(f instanceof Uint8Array))) {
    throw new InvalidTransactionError('rlp: expected a list of transaction fields');
  }
  const n = (i: number) => bytesToBigInt(fields[i] ?? new Uint8Array());
  if (type === 0) {
    const v = n(6);
    return { type, chainId: v >= 35n ? (v - 35n) / 2n : undefined, gasLimit: n(2), maxFee: n(1), maxTip: n(1) };
  }
  if (type === 1) return { type, chainId: n(0), gasLimit: n(3), maxFee: n(2), maxTip: n(2) };
  return { type, chainId: n(0), gasLimit: n(4), maxFee: n(3), maxTip: n(2), sidecar };
}

/** An ethereumjs error's message without the transaction and block dump it appends. */
export function ethereumjsReason(error: Error): string {
  return error.message.split(' (tx type')[0].replace(/ -> block number.*$/, '');
}

/**
 * The stand-in key that signs an impersonated address's transactions (their sender is set, not
 * recovered): one per address, so two addresses' identical transactions still differ in hash.
 */
export function impersonationKey(sender: Uint8Array): Uint8Array {
  return keccak256(concatBytes(new TextEncoder().encode('l2devnet impersonation'), sender));
}

/**
 * `tx` with its sender fixed to `sender` (impersonation): ethereumjs asks the transaction for its
 * sender, so a proxy answers that question and passes everything else through (transactions are
 * frozen, so the method cannot be replaced on the object itself).
 */
export function withSender(tx: TypedTransaction, sender: Uint8Array): TypedTransaction {
  const address = new Address(sender);
  return new Proxy(tx, {
    get(target, prop) {
      if (prop === 'getSenderAddress') return () => address;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
