/**
 * Dev accounts: BIP-39 seed → BIP-32 derivation on m/44'/60'/0'/0/i. Written on node's crypto and
 * libsecp256k1 (HMAC-SHA512, PBKDF2, key tweaks, public keys) because the pure-JS path costs
 * ~250 ms at start-up, most of the start-up budget.
 */
import { createHmac, pbkdf2Sync } from 'node:crypto';

import type * as Bip39 from 'ethereum-cryptography/bip39';
import type * as English from 'ethereum-cryptography/bip39/wordlists/english';
import secp256k1 from 'secp256k1';

import { keccak256 } from './fastCrypto';

/** A new random BIP-39 mnemonic of `words` words (12, 15, 18, 21 or 24), English (Anvil's --mnemonic-random). */
export function randomMnemonic(words: number): string {
  // Loaded on use: a start-up without --mnemonic-random never reads the word list.
  const { generateMnemonic } = require('ethereum-cryptography/bip39') as typeof Bip39;
  const { wordlist } = require('ethereum-cryptography/bip39/wordlists/english') as typeof English;
  return generateMnemonic(wordlist, (words / 3) * 32);
}

/** The mnemonic Foundry and Hardhat use, so the dev accounts match what their users expect. */
export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

interface ExtendedKey {
  key: Uint8Array;
  chainCode: Uint8Array;
}

const HARDENED = 0x80000000;

/** BIP-39 seed without passphrase. */
function mnemonicToSeed(mnemonic: string): Uint8Array {
  const words = mnemonic.trim().split(/\s+/).join(' ').normalize('NFKD');
  return pbkdf2Sync(words, 'mnemonic', 2048, 64, 'sha512');
}

function hmac(key: Uint8Array, data: Uint8Array): { left: Uint8Array; right: Uint8Array } {
  const i = createHmac('sha512', key).update(data).digest();
  return { left: new Uint8Array(i.subarray(0, 32)), right: new Uint8Array(i.subarray(32)) };
}

/** BIP-32 private child key derivation. */
function child(parent: ExtendedKey, index: number): ExtendedKey {
  const data = new Uint8Array(37);
  if (index >= HARDENED) data.set(parent.key, 1);
  else data.set(secp256k1.publicKeyCreate(parent.key, true), 0);
  new DataView(data.buffer).setUint32(33, index);
  const { left, right } = hmac(parent.chainCode, data);
  const key = secp256k1.privateKeyTweakAdd(new Uint8Array(parent.key), left);
  return { key, chainCode: right };
}

export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  const publicKey = secp256k1.publicKeyCreate(privateKey, false);
  return keccak256(publicKey.subarray(1)).subarray(12);
}

/** The path the accounts are derived under, each account's index appended (Anvil's --derivation-path). */
export const DEFAULT_DERIVATION_PATH = "m/44'/60'/0'/0/";

/**
 * The indexes of a derivation path prefix as Anvil takes it (`m/44'/60'/0'/0/`, the trailing slash
 * optional), hardened where marked `'` or `h`; undefined if it is not one.
 */
export function derivationPathIndexes(path: string): number[] | undefined {
  const parts = path.replace(/\/$/, '').split('/');
  if (parts.shift() !== 'm') return undefined;
  const out: number[] = [];
  for (const part of parts) {
    const m = /^(\d+)(['h])?$/.exec(part);
    if (m === null || Number(m[1]) >= HARDENED) return undefined;
    out.push(Number(m[1]) + (m[2] === undefined ? 0 : HARDENED));
  }
  return out;
}

/** Derives `count` accounts at `path`/i (default m/44'/60'/0'/0/i). */
export function deriveAccounts(mnemonic: string, count: number, path = DEFAULT_DERIVATION_PATH): DevAccount[] {
  const indexes = derivationPathIndexes(path);
  if (indexes === undefined) throw new Error(`not a derivation path: ${path}`);
  const master = hmac(new TextEncoder().encode('Bitcoin seed'), mnemonicToSeed(mnemonic));
  let node: ExtendedKey = { key: master.left, chainCode: master.right };
  for (const index of indexes) node = child(node, index);
  const accounts: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = child(node, i).key;
    accounts.push({ address: privateKeyToAddress(privateKey), privateKey });
  }
  return accounts;
}
