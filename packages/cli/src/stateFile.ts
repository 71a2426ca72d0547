/**
 * State files (--load-state, --dump-state, --state, as Anvil's). Written as Anvil writes them (its
 * dump's JSON, rpc/src/anvilState.ts), so Anvil's --load-state reads them; where an account's or
 * slot's preimage is not known, as anvil_dumpState's blob of this node (0x and hex). Read: Anvil's
 * JSON (its accounts: balance, nonce, code and storage), or either dump as anvil_dumpState answers it.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { Chain } from '@l2devnet/core';
import { anvilAccounts, anvilStateJson, anvilStateOfBlob } from '@l2devnet/rpc';

import { OptionError } from './options';

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
    if (text.startsWith('{')) await chain.dev.loadAccounts(anvilAccounts(JSON.parse(text)));
    else if (hexText(text)) {
      const blob = hexToBytes(text as `0x${string}`);
      const accounts = anvilStateOfBlob(blob);
      if (accounts === undefined) await chain.dev.loadState(blob);
      else await chain.dev.loadAccounts(accounts);
    } else throw new Error('neither an anvil_dumpState blob (0x and hex digits) nor a JSON state');
  } catch (e) {
    if (e instanceof OptionError) throw e;
    throw new OptionError(`--load-state ${file}: ${(e as Error).message}`);
  }
}

/** Writes the head state to `file` (through a temporary file, so a stop mid-write leaves the old one). */
export async function dumpStateFile(chain: Chain, file: string): Promise<void> {
  const listed = await chain.dev.listState();
  const text =
    listed === undefined
      ? `${bytesToHex(await chain.dev.dumpState())}\n`
      : JSON.stringify(anvilStateJson(listed.accounts, listed.head));
  const partial = `${file}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, file);
}
