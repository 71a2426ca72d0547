/**
 * State files (--load-state, --dump-state, --state, as Anvil's): the head state written as
 * anvil_dumpState answers it (0x and the blob's hex) and read back with anvil_loadState's merge; a
 * state file Anvil wrote (JSON, its `accounts` by address) is read too, each account's balance,
 * nonce, code and storage set at the head.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

import { bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { Chain } from '@l2devnet/core';

import { OptionError } from './options';

interface AnvilAccount {
  nonce?: number | string;
  balance?: string;
  code?: string;
  storage?: Record<string, string>;
}

const hexText = (v: string) => /^0x([0-9a-fA-F]{2})*$/.test(v);

/** Loads `file` into the head state; an unreadable or malformed file is an OptionError naming it. */
export async function loadStateFile(chain: Chain, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new OptionError(`--load-state ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    if (text.startsWith('{')) await loadAnvilJson(chain, JSON.parse(text) as { accounts?: unknown });
    else if (hexText(text)) await chain.dev.loadState(hexToBytes(text as `0x${string}`));
    else throw new Error('neither an anvil_dumpState blob (0x and hex digits) nor a JSON state');
  } catch (e) {
    if (e instanceof OptionError) throw e;
    throw new OptionError(`--load-state ${file}: ${(e as Error).message}`);
  }
}

async function loadAnvilJson(chain: Chain, state: { accounts?: unknown }): Promise<void> {
  if (typeof state.accounts !== 'object' || state.accounts === null)
    throw new Error('a JSON state needs "accounts": { address: { balance, nonce, code, storage } }');
  for (const [address, raw] of Object.entries(state.accounts as Record<string, AnvilAccount>)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`"${address}" is not an address`);
    const where = hexToBytes(address as `0x${string}`);
    await chain.dev.setAccount(where, {
      balance: raw.balance === undefined ? undefined : BigInt(raw.balance),
      nonce: raw.nonce === undefined ? undefined : BigInt(raw.nonce),
    });
    if (raw.code !== undefined && raw.code !== '0x') {
      if (!hexText(raw.code)) throw new Error(`the code of ${address} is not hex`);
      await chain.dev.setCode(where, hexToBytes(raw.code as `0x${string}`));
    }
    for (const [slot, value] of Object.entries(raw.storage ?? {})) {
      await chain.dev.setStorageAt(where, word(slot), word(value));
    }
  }
}

/** A storage key or value as a 32-byte word (Anvil writes them as quantities or words). */
function word(v: string): Uint8Array {
  return setLengthLeft(bigIntToBytes(BigInt(v)), 32);
}

/** Writes the head state to `file` (through a temporary file, so a stop mid-write leaves the old one). */
export async function dumpStateFile(chain: Chain, file: string): Promise<void> {
  const blob = await chain.dev.dumpState();
  const partial = `${file}.partial`;
  writeFileSync(partial, `${bytesToHex(blob)}\n`);
  renameSync(partial, file);
}
