import { privateToAddress } from '@ethereumjs/util';
import { pbkdf2Sync } from 'node:crypto';

import { HDKey } from 'ethereum-cryptography/hdkey';

/** The mnemonic Foundry and Hardhat use, so the dev accounts match what their users expect. */
export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

/** BIP-39 seed (no passphrase), with node's native PBKDF2: the pure-JS one costs ~300 ms at start-up. */
function mnemonicToSeed(mnemonic: string): Uint8Array {
  const words = mnemonic.trim().split(/\s+/).join(' ').normalize('NFKD');
  return pbkdf2Sync(words, 'mnemonic', 2048, 64, 'sha512');
}

/** Derives `count` accounts on the standard path m/44'/60'/0'/0/i. */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeed(mnemonic));
  const accounts: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = root.derive(`m/44'/60'/0'/0/${i}`).privateKey;
    if (privateKey === null) throw new Error(`could not derive account ${i}`);
    accounts.push({ address: privateToAddress(privateKey), privateKey });
  }
  return accounts;
}
