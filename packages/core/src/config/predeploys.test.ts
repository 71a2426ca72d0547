import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { predeployAllocs } from './predeploys';

const codeHashes = (chainId: bigint, create2Deployer?: boolean) =>
  Object.fromEntries(
    predeployAllocs(chainId, create2Deployer).map((a) => [bytesToHex(a.address), bytesToHex(keccak256(a.code!))]),
  );

test('the predeploys have the code hashes published for them (Ethereum mainnet, chain 1)', () => {
  expect(codeHashes(1n)).toEqual({
    // Foundry's DEFAULT_CREATE2_DEPLOYER_CODEHASH (crates/evm/core/src/constants.rs).
    '0x4e59b44847b379578588920ca78fbf26c0b4956c': '0x2fa86add0aed31f33a762c9d88e807c475bd51d0f52bd0955754b2608f7e4989',
    // Multicall3's runtime, the output of the pre-signed deployment in mds1/multicall's README.
    '0xca11bde05977b3631167028862be2a173976ca11': '0xd5c15df687b16f2ff992fc8d767b4216323184a2bbc6ee2f9c398c318e770891',
    // Permit2 as deployed on Ethereum mainnet (its immutables for chain 1).
    '0x000000000022d473030f116ddee9f6b43ac78ba3': '0xc67d1657868aa5146eaf24fb879fb1fdec3d2d493b3683a61c9c2f4fb2851131',
    // Safe's singleton factory: the same Yul proxy as the CREATE2 deployer, at its own address.
    '0x914d7fec6aac8cd542e72bca78b30650d45643d7': '0x2fa86add0aed31f33a762c9d88e807c475bd51d0f52bd0955754b2608f7e4989',
  });
});

test("Permit2's immutables are its constructor's on the chain: Linea mainnet's chain id and domain separator", () => {
  const permit2 = predeployAllocs(59144n).find(
    (a) => bytesToHex(a.address) === '0x000000000022d473030f116ddee9f6b43ac78ba3',
  )!;
  const code = bytesToHex(permit2.code!);
  // CHAINID, PUSH32 <cached chain id>, then the cached separator (Permit2's EIP712.DOMAIN_SEPARATOR).
  expect(code).toContain(`467f${(59144).toString(16).padStart(64, '0')}`);
  expect(code).toContain('50899bbfff6bb2860cdeca4c0f51a5c4a376e69b94e166ef0897ab9298db275e');
  expect(bytesToHex(keccak256(permit2.code!))).toBe(
    '0x939f3d8fd3d2ffc9dd506aae79fb3827c60a629d41f9a7f6b85e26275e0ec649',
  );
  expect(permit2.nonce).toBe(1n);
});

test('without the CREATE2 deployer the other predeploys stay', () => {
  expect(Object.keys(codeHashes(31337n, false))).toEqual([
    '0xca11bde05977b3631167028862be2a173976ca11',
    '0x000000000022d473030f116ddee9f6b43ac78ba3',
    '0x914d7fec6aac8cd542e72bca78b30650d45643d7',
  ]);
});
