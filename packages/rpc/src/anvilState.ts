/**
 * Anvil's state dump, as anvil_dumpState answers it (hex of gzipped JSON) and --dump-state writes it
 * (the JSON itself): the head block's environment, every account by address with its storage by
 * slot, the head's number; no blocks, transactions or historical states (the chain keeps its own).
 * Anvil's --load-state and anvil_loadState read it; this node reads Anvil's, and its own blob.
 *
 *   { block: { number, beneficiary, timestamp, gas_limit, basefee, difficulty, prevrandao,
 *              blob_excess_gas_and_price, slot_num },
 *     accounts: { "0x…": { nonce, balance, code, storage: { "0x<slot>": "0x<value>" } } },
 *     best_block_number, blocks: [], transactions: [], historical_states: null }
 */
import { gunzipSync, gzipSync } from 'node:zlib';

import type { BlockHeader } from '@ethereumjs/block';
import { bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { ListedAccount, LoadedAccount } from '@l2devnet/core';

import { hex, quantity } from './format';

/** The head state in Anvil's dump format. */
export function anvilStateJson(accounts: ListedAccount[], head: BlockHeader): Record<string, unknown> {
  const excess = head.excessBlobGas;
  return {
    block: {
      number: quantity(head.number),
      beneficiary: hex(head.coinbase.bytes),
      timestamp: quantity(head.timestamp),
      gas_limit: Number(head.gasLimit),
      basefee: Number(head.baseFeePerGas ?? 0n),
      difficulty: quantity(head.difficulty),
      prevrandao: hex(head.mixHash),
      ...(excess !== undefined && {
        blob_excess_gas_and_price: { excess_blob_gas: Number(excess), blob_gasprice: Number(head.getBlobGasPrice()) },
      }),
      slot_num: 0,
    },
    accounts: Object.fromEntries(
      accounts.map((a) => [
        hex(a.address),
        {
          nonce: Number(a.nonce),
          balance: quantity(a.balance),
          code: hex(a.code),
          storage: Object.fromEntries(a.storage.map(([slot, value]) => [hex(slot), hex(value)])),
        },
      ]),
    ),
    best_block_number: Number(head.number),
    blocks: [],
    transactions: [],
    historical_states: null,
  };
}

/** anvil_dumpState's answer in Anvil's form: the JSON, gzipped. */
export function anvilStateBlob(json: Record<string, unknown>): Uint8Array {
  return gzipSync(JSON.stringify(json));
}

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * What a state blob holds: Anvil's dump (gzipped JSON, or JSON as it is), read for its accounts; or
 * this node's own blob (undefined), which core's loadState reads.
 */
export function anvilStateOfBlob(blob: Uint8Array): LoadedAccount[] | undefined {
  let text: string;
  if (blob[0] === GZIP_MAGIC[0] && blob[1] === GZIP_MAGIC[1]) text = gunzipSync(blob).toString('utf8');
  else if (blob[0] === 0x7b /* { */) text = Buffer.from(blob).toString('utf8');
  else return undefined;
  return anvilAccounts(JSON.parse(text));
}

interface AnvilAccount {
  nonce?: number | string;
  balance?: string;
  code?: string;
  storage?: Record<string, string>;
}

const HEX = /^0x([0-9a-fA-F]{2})*$/;
const QUANTITY = /^(0x[0-9a-fA-F]+|[0-9]+)$/;

/** The accounts of an Anvil state (its dump, or a state file); an Error naming what is malformed. */
export function anvilAccounts(state: unknown): LoadedAccount[] {
  const accounts = (state as { accounts?: unknown } | null)?.accounts;
  if (typeof accounts !== 'object' || accounts === null)
    throw new Error('an Anvil state needs "accounts": { address: { balance, nonce, code, storage } }');
  const number = (v: unknown, what: string): bigint => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
    if (typeof v === 'string' && QUANTITY.test(v)) return BigInt(v);
    throw new Error(`${what} is not a number: ${JSON.stringify(v)}`);
  };
  // Slots and values: quantities or words (Anvil writes them padded; hand-written files often not).
  const word = (v: string, what: string) => setLengthLeft(bigIntToBytes(number(v, what)), 32);
  return Object.entries(accounts as Record<string, AnvilAccount>).map(([address, raw]) => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`"${address}" is not an address`);
    if (raw.code !== undefined && !HEX.test(raw.code)) throw new Error(`the code of ${address} is not hex`);
    return {
      address: hexToBytes(address as `0x${string}`),
      balance: raw.balance === undefined ? undefined : number(raw.balance, `the balance of ${address}`),
      nonce: raw.nonce === undefined ? undefined : number(raw.nonce, `the nonce of ${address}`),
      code: raw.code === undefined ? undefined : hexToBytes(raw.code as `0x${string}`),
      storage: Object.entries(raw.storage ?? {}).map(([slot, value]) => [
        word(slot, `a storage slot of ${address}`),
        word(value, `a storage value of ${address}`),
      ]),
    };
  });
}
