/**
 * Linea's profitability rule: the priority fee a transaction must pay for the sequencer to take it,
 * from the pricing its blocks carry in their extra data (Consensys/linea-monorepo cb180134,
 * `linea-besu/plugins/linea-sequencer/sequencer/src/main/java/net/consensys/linea/`, below SEQ).
 */
import { deflateRawSync } from 'node:zlib';

import type { TypedTransaction } from '@ethereumjs/tx';
import { TransactionType } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes } from '@ethereumjs/util';

/** The costs a block's extra data carries (SEQ/extradata/LineaExtraDataHandler.java, version 1). */
export interface Pricing {
  /** The fixed cost per gas of a transaction, wei. */
  fixedCostWei: bigint;
  /** The cost per byte of compressed transaction data, wei. */
  variableCostWei: bigint;
  /** The L1 gas price; the sequencer takes it as its minimum gas price. */
  ethGasPriceWei: bigint;
}

/**
 * Linea mainnet's values (advanced-mainnet.toml: fixed 30,000,000 wei, variable 10,000,000 wei,
 * min-gas-price 10,000,000 wei), which the extra data of a dev chain's blocks starts with.
 */
export const LINEA_MAINNET_PRICING: Pricing = {
  fixedCostWei: 30_000_000n,
  variableCostWei: 10_000_000n,
  ethGasPriceWei: 10_000_000n,
};

const WEI_IN_KWEI = 1_000n;
const MAX_FIELD = 0xffffffffn;

/** The version-1 extra data: 0x01, then the fixed cost, variable cost and L1 gas price in kWei, as uint32s. */
export function encodeExtraData(p: Pricing): Uint8Array {
  const out = new Uint8Array(32);
  out[0] = 1;
  const view = new DataView(out.buffer);
  [p.fixedCostWei, p.variableCostWei, p.ethGasPriceWei].forEach((wei, i) => {
    const kwei = wei / WEI_IN_KWEI;
    view.setUint32(1 + 4 * i, Number(kwei > MAX_FIELD ? MAX_FIELD : kwei));
  });
  return out;
}

/** The pricing of version-1 extra data, or the handler's refusal (linea_setExtraData's words). */
export function decodeExtraData(data: Uint8Array): Pricing | { error: string } {
  if (data.length !== 32) return { error: `Expected 32 bytes but got ${data.length}` };
  if (data[0] !== 1) return { error: `Unsupported extra data field ${bytesToHex(data)}` };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const field = (i: number) => BigInt(view.getUint32(1 + 4 * i)) * WEI_IN_KWEI;
  return { fixedCostWei: field(0), variableCostWei: field(1), ethGasPriceWei: field(2) };
}

/**
 * The priority fee per gas a transaction of `gas` and `compressedSize` bytes must pay at `margin`
 * (SEQ/bl/TransactionProfitabilityCalculator.java profitablePriorityFeePerGas):
 * margin × (variable cost × size / gas + fixed cost), the division in integers (Java longs), the
 * product in a double, truncated.
 */
export function profitablePriorityFee(pricing: Pricing, margin: number, gas: bigint, compressedSize: number): bigint {
  if (gas <= 0n) return 0n;
  const perGas = (pricing.variableCostWei * BigInt(compressedSize)) / gas + pricing.fixedCostWei;
  return BigInt(Math.trunc(margin * Number(perGas)));
}

/** The price per gas a transaction pays in a block of `baseFee` (Besu's effective gas price). */
export function payingGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const tipped = baseFee + tx.maxPriorityFeePerGas;
    return tx.maxFeePerGas < tipped ? tx.maxFeePerGas : tipped;
  }
  return (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/**
 * What the sequencer compresses to size a transaction (SEQ/utils/TxEncodingUtils.java
 * encodeForCompressor): the sender's 20 bytes, then the transaction as it is signed, with a
 * contract creation's `to` as 20 zero bytes.
 */
export function compressorInput(tx: TypedTransaction, sender: Uint8Array): Uint8Array {
  const raw = tx.getMessageToSign();
  if (tx.to !== undefined) return concatBytes(sender, Array.isArray(raw) ? RLP.encode(raw) : raw);
  // The `to` field (index 3 of a legacy transaction, 5 of a typed one) as the zero address.
  const fields = (Array.isArray(raw) ? raw : (RLP.decode(raw.subarray(1)) as Uint8Array[])).slice();
  const at = tx.type === TransactionType.Legacy ? 3 : tx.type === TransactionType.AccessListEIP2930 ? 4 : 5;
  fields[at] = new Uint8Array(20);
  const body = RLP.encode(fields);
  return concatBytes(sender, Array.isArray(raw) ? body : concatBytes(new Uint8Array([tx.type]), body));
}

/**
 * The compressed size the sequencer prices a transaction by. Linea's is its native blob compressor
 * (lzss over a dictionary, prover/lib/compressor/blob/v1 RawCompressedSize); this stand-in deflates
 * the same bytes instead, keeps Linea's 3-byte header, its no-compression bound and its packing into
 * 254-bit field elements of 32 bytes.
 */
export function compressedSize(input: Uint8Array): number {
  let n = deflateRawSync(input, { level: 9 }).length + COMPRESSOR_HEADER;
  if (n > input.length) n = input.length + COMPRESSOR_HEADER;
  return packedSize(n);
}

/**
 * The largest compressedSize of `length` bytes of input: stored as they are. A transaction
 * profitable at this size is profitable at its own (the fee grows with the size), so the
 * sequencer's verdict needs no compression then.
 */
export function compressedSizeBound(length: number): number {
  return packedSize(length + COMPRESSOR_HEADER);
}

const COMPRESSOR_HEADER = 3;

/** `n` bytes packed into 254-bit field elements of 32 bytes. */
function packedSize(n: number): number {
  return Math.ceil((n * 8) / 254) * 32;
}
