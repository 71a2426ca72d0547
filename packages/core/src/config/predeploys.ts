/**
 * The well-known contracts a dev chain's genesis carries, at the addresses and with the runtime code
 * they have on Linea mainnet (and on most EVM chains): the CREATE2 deployer that Anvil deploys by
 * default and `forge script` deploys salted contracts through, Multicall3 (viem's multicall),
 * Permit2 and the Safe singleton factory. Their code and where each came from are in
 * fixtures/genesis/predeploys.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { bigIntToBytes, concatBytes, hexToBytes, setLengthLeft, utf8ToBytes } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
// Not the project's fast keccak: genesis is written before a chain readies it.
import { keccak256 } from 'ethereum-cryptography/keccak';

import { FIXTURES_DIR } from './fixtures';
import type { GenesisAllocation } from './genesis';

interface Predeploy {
  name: string;
  address: PrefixedHexString;
  code: PrefixedHexString;
  /** Byte offsets of the immutables a constructor caches from the chain id (Permit2's EIP-712 domain). */
  immutables?: { chainId: number; domainSeparator: number };
}

/** The CREATE2 deployer's address (Arachnid's deterministic deployment proxy), Anvil's default one. */
export const CREATE2_DEPLOYER = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

let loaded: Predeploy[] | undefined;

function predeploys(): Predeploy[] {
  return (loaded ??= JSON.parse(readFileSync(join(FIXTURES_DIR, 'genesis', 'predeploys.json'), 'utf8')));
}

/**
 * Permit2's EIP-712 domain separator on `chainId` (EIP712.sol in Uniswap/permit2):
 * keccak256(abi.encode(typehash, keccak256("Permit2"), chainId, address)).
 */
function domainSeparator(chainId: bigint, address: Uint8Array): Uint8Array {
  const typeHash = keccak256(utf8ToBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)'));
  const word = (b: Uint8Array) => setLengthLeft(b, 32);
  return keccak256(
    concatBytes(typeHash, keccak256(utf8ToBytes('Permit2')), word(bigIntToBytes(chainId)), word(address)),
  );
}

/** `p`'s runtime code on `chainId`: its immutables written as its constructor would have there. */
function codeOn(p: Predeploy, chainId: bigint): Uint8Array {
  const code = hexToBytes(p.code);
  if (p.immutables !== undefined) {
    code.set(setLengthLeft(bigIntToBytes(chainId), 32), p.immutables.chainId);
    code.set(domainSeparator(chainId, hexToBytes(p.address)), p.immutables.domainSeparator);
  }
  return code;
}

/**
 * The predeploys as genesis allocations on `chainId` (nonce 1, as a contract created since EIP-161),
 * without the CREATE2 deployer when `create2Deployer` is false (Anvil's
 * --disable-default-create2-deployer).
 */
export function predeployAllocs(chainId: bigint, create2Deployer = true): GenesisAllocation[] {
  return predeploys()
    .filter((p) => create2Deployer || p.address !== CREATE2_DEPLOYER)
    .map((p) => ({ address: hexToBytes(p.address), balance: 0n, nonce: 1n, code: codeOn(p, chainId) }));
}
