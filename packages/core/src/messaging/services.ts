/**
 * Linea's message services on a devnet with an L1 (--l1): where they are, who runs them, and how a
 * new chain's genesis holds them (fixtures/contracts/messaging, compiled by build-fixtures).
 *
 * They sit at Linea mainnet's addresses (LineaRollup on Ethereum, L2MessageService on Linea), run by
 * one operator account with a fixed, published key: the node anchors and finalizes with it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { bigIntToBytes, hexToBytes, privateToAddress, setLengthLeft, utf8ToBytes } from '@ethereumjs/util';
// Not the project's fast keccak: this runs before a chain (which readies it) is made, when options are read.
import { keccak256 } from 'ethereum-cryptography/keccak';

import { FIXTURES_DIR } from '../config/fixtures';
import type { GenesisAllocation } from '../config/genesis';

/** LineaRollup's address on Ethereum mainnet: the L1 message service here. */
export const L1_MESSAGE_SERVICE = hexToBytes('0xd19d4B5d358258f05D7B411E21A1460D11B0876F');
/** L2MessageService's address on Linea mainnet: the L2 message service here. */
export const L2_MESSAGE_SERVICE = hexToBytes('0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec');
/** The TokenBridge's addresses on Ethereum mainnet and on Linea (docs.linea.build, network/build/contracts). */
export const L1_TOKEN_BRIDGE = hexToBytes('0x051F1D88f0aF5763fB888eC4378b4D8B29ea3319');
export const L2_TOKEN_BRIDGE = hexToBytes('0x353012dc4a9A6cF55c941bADC267f82004A8ceB9');

/** The operator's key: keccak-256 of "l2devnet message service operator" (a devnet key, public). */
export function operatorKey(): Uint8Array {
  return keccak256(utf8ToBytes('l2devnet message service operator'));
}

let operator: Uint8Array | undefined;

export function operatorAddress(): Uint8Array {
  return (operator ??= privateToAddress(operatorKey()));
}

/** The L2's minimum message fee, as Linea's L2MessageService starts with (0.0001 ETH). */
export const MINIMUM_FEE_WEI = 10n ** 14n;

const ETH = 10n ** 18n;
/** What each service holds to pay out the other layer's messages (Linea's hold the bridged ETH). */
const SERVICE_BALANCE = 10n ** 9n * ETH;
const OPERATOR_BALANCE = 10n ** 6n * ETH;

/** `n` as a 32-byte word: a storage slot, an ABI argument. */
export const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);

function runtimeCode(contract: 'LineaRollup' | 'L2MessageService' | 'TokenBridge'): Uint8Array {
  const file = join(FIXTURES_DIR, 'contracts', 'messaging', `${contract}.json`);
  const artifact = JSON.parse(readFileSync(file, 'utf8')) as { deployedBytecode: `0x${string}` };
  return hexToBytes(artifact.deployedBytecode);
}

/**
 * Where the services' pausing, roles and rate limit live (MessageService.sol's Controls, ERC-7201:
 * keccak256(abi.encode(uint256(keccak256("l2devnet.messaging.controls")) - 1)) & ~0xff); the rate
 * limit's period and amount are its third and fourth words.
 */
const CONTROLS_LOCATION = 0xedf7888399609c09036798b9681873a382640a60f75281986ea45d75a846d200n;
/**
 * The rate limit both services start with, as Linea deploys them (contracts/.env.template:
 * LINEA_ROLLUP_RATE_LIMIT_* and L2_MESSAGE_SERVICE_RATE_LIMIT_*): 1,000 ETH a day.
 */
export const RATE_LIMIT_PERIOD_SECONDS = 86_400n;
export const RATE_LIMIT_WEI = 1_000n * ETH;

/**
 * The genesis entries of `layer`'s message service, token bridge and the operator: each contract's
 * code and its storage as its constructor would leave it (see the storage layouts in
 * MessageService.sol and TokenBridge.sol), and balances. The service: slot 0 the operator, slot 1 the
 * next message number, on the L2 slot 5 the minimum fee, the rate limit in the controls' storage. The
 * bridge: slots 0-4 the operator, the message service, the other chain's bridge, this chain's and the
 * other chain's ids.
 */
export function messagingAlloc(layer: 'l1' | 'l2', chainId: bigint, peerChainId: bigint): GenesisAllocation[] {
  const operator = operatorAddress();
  const service = layer === 'l1' ? L1_MESSAGE_SERVICE : L2_MESSAGE_SERVICE;
  const storage: [Uint8Array, Uint8Array][] = [
    [word(0n), operator],
    [word(1n), bigIntToBytes(1n)],
    [word(CONTROLS_LOCATION + 2n), bigIntToBytes(RATE_LIMIT_PERIOD_SECONDS)],
    [word(CONTROLS_LOCATION + 3n), bigIntToBytes(RATE_LIMIT_WEI)],
  ];
  if (layer === 'l2') storage.push([word(5n), bigIntToBytes(MINIMUM_FEE_WEI)]);
  return [
    {
      address: service,
      balance: SERVICE_BALANCE,
      code: runtimeCode(layer === 'l1' ? 'LineaRollup' : 'L2MessageService'),
      storage,
    },
    {
      address: layer === 'l1' ? L1_TOKEN_BRIDGE : L2_TOKEN_BRIDGE,
      balance: 0n,
      code: runtimeCode('TokenBridge'),
      storage: [
        [word(0n), operator],
        [word(1n), service],
        [word(2n), layer === 'l1' ? L2_TOKEN_BRIDGE : L1_TOKEN_BRIDGE],
        [word(3n), bigIntToBytes(chainId)],
        [word(4n), bigIntToBytes(peerChainId)],
      ],
    },
    { address: operator, balance: OPERATOR_BALANCE },
  ];
}
