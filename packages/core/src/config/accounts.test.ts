import { bytesToHex } from '@ethereumjs/util';

import { DEFAULT_MNEMONIC, deriveAccounts } from './accounts';
import { initFastCrypto } from './fastCrypto';

beforeAll(() => initFastCrypto());

test('the default mnemonic derives the addresses Foundry and Hardhat users know', () => {
  const accounts = deriveAccounts(DEFAULT_MNEMONIC, 3);
  expect(accounts.map((a) => bytesToHex(a.address))).toEqual([
    '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  ]);
  expect(bytesToHex(accounts[0].privateKey)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  expect(bytesToHex(accounts[2].privateKey)).toBe('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
});

test('another mnemonic derives other accounts', () => {
  const [a] = deriveAccounts(
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    1,
  );
  // m/44'/60'/0'/0/0 of the BIP-39 test vector mnemonic.
  expect(bytesToHex(a.address)).toBe('0x9858effd232b4033e47d90003d41ec34ecaeda94');
});
