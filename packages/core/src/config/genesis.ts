/**
 * Genesis: either the dev accounts derived from a mnemonic, or a geth-style genesis.json (alloc with
 * balances, code, storage and nonces; config with chainId and fork blocks/times).
 */
import { createCommonFromGethGenesis, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import type { Common, GethGenesis } from '@ethereumjs/common';
import { Account, Address, hexToBytes, setLengthLeft, toBytes } from '@ethereumjs/util';
import type { MerkleStateManager } from '@ethereumjs/statemanager';

import { InvalidGenesisError } from '../errors';
import { fastCrypto } from './fastCrypto';
import { prepareCommon } from './preparedCommon';

/** Chain id used when none is given: Anvil's and Hardhat's, so their users' configs work; no public network uses it. */
export const DEFAULT_CHAIN_ID = 31337n;
/** The most recent hardfork @ethereumjs/vm v10 implements completely. */
export const DEFAULT_HARDFORK = Hardfork.Osaka;
export const DEFAULT_GAS_LIMIT = 30_000_000n;
export const DEFAULT_BALANCE = 10_000n * 10n ** 18n;
/** Base fee of the genesis block (1 gwei, as Anvil and geth's dev mode). */
export const INITIAL_BASE_FEE = 1_000_000_000n;

export const SUPPORTED_HARDFORKS: string[] = Object.values(Hardfork).filter(
  (h) => ![Hardfork.Dao, Hardfork.MergeNetsplitBlock].includes(h as never),
);

/** Other names of the hardforks, as Anvil takes them (alloy's EthereumHardfork) and geth writes them. */
const HARDFORK_ALIASES: Record<string, string> = {
  frontier: Hardfork.Chainstart,
  tangerine: Hardfork.TangerineWhistle,
  eip150: Hardfork.TangerineWhistle,
  eip158: Hardfork.SpuriousDragon,
  merge: Hardfork.Paris,
  // Anvil's default: the most recent fork; here the most recent this node runs completely.
  latest: DEFAULT_HARDFORK,
};

/**
 * The hardfork `name` names, as this node spells it: its own names and Anvil's, in any case and
 * with or without separators (`Prague`, `spuriousdragon`, `spurious-dragon`, `latest`); undefined
 * for none.
 */
export function hardforkNamed(name: string): string | undefined {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SUPPORTED_HARDFORKS.find((h) => h.toLowerCase() === key) ?? HARDFORK_ALIASES[key];
}

export interface GenesisAllocation {
  address: Uint8Array;
  balance: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  storage?: [Uint8Array, Uint8Array][];
}

export interface GenesisSpec {
  common: Common;
  /** True when the hardfork follows a fork schedule (genesis file), false when one fork is fixed. */
  scheduled: boolean;
  alloc: GenesisAllocation[];
  gasLimit: bigint;
  timestamp: bigint | undefined;
  extraData: Uint8Array;
  baseFeePerGas: bigint;
  coinbase: Uint8Array;
  difficulty: bigint;
  nonce: Uint8Array;
  mixHash: Uint8Array;
  /** The DAO fork's block when the file supports it (daoForkSupport): its state change and extra data. */
  daoForkBlock: bigint | undefined;
  /** Cancun at genesis: the genesis block's blob gas fields (geth takes them from the file). */
  excessBlobGas: bigint | undefined;
  blobGasUsed: bigint | undefined;
}

export function devCommon(chainId: bigint, hardfork: string): Common {
  if (!SUPPORTED_HARDFORKS.includes(hardfork)) {
    throw new InvalidGenesisError(`unknown hardfork "${hardfork}"; supported: ${SUPPORTED_HARDFORKS.join(', ')}`);
  }
  return prepareCommon(
    createCustomCommon({ chainId: Number(chainId), name: 'l2devnet' }, Mainnet, {
      hardfork,
      customCrypto: fastCrypto,
    }),
  );
}

/**
 * A chain's configuration as it was made (a chain id and fork, or a genesis file with its schedule):
 * its Common at genesis, the genesis file's spec, and whether forks follow a schedule.
 */
export function chainCommon(
  chainId: string,
  hardfork: string | null,
  genesis: unknown,
): { common: Common; spec: GenesisSpec | undefined; scheduled: boolean } {
  const spec = genesis !== null ? gethGenesisSpec(genesis, hardfork ?? undefined) : undefined;
  const common = spec?.common ?? devCommon(BigInt(chainId), hardfork ?? DEFAULT_HARDFORK);
  const scheduled = spec?.scheduled ?? false;
  if (scheduled) common.setHardforkBy({ blockNumber: 0n, timestamp: spec?.timestamp ?? 0n });
  return { common, spec, scheduled };
}

function big(value: unknown, what: string): bigint {
  try {
    if (typeof value === 'number' || typeof value === 'bigint') return BigInt(value);
    if (typeof value === 'string' && value !== '') return BigInt(value);
  } catch {
    // fall through to the error below
  }
  throw new InvalidGenesisError(
    `genesis: ${what} must be a number or a hex/decimal string; got ${JSON.stringify(value)}`,
  );
}

/** geth's genesis fields (core/genesis.go), by their lower-case names. */
const GENESIS_FIELDS = new Map(
  [
    'config',
    'nonce',
    'timestamp',
    'extraData',
    'gasLimit',
    'difficulty',
    'mixHash',
    'coinbase',
    'alloc',
    'number',
    'gasUsed',
    'parentHash',
    'baseFeePerGas',
    'excessBlobGas',
    'blobGasUsed',
  ].map((name) => [name.toLowerCase(), name]),
);

/** Reads a geth-style genesis.json (already parsed). */
export function gethGenesisSpec(json: unknown, hardfork: string | undefined): GenesisSpec {
  if (typeof json !== 'object' || json === null) throw new InvalidGenesisError('genesis: must be a JSON object');
  // geth writes fields it has no value for as null (baseFeePerGas before London, excessBlobGas, ...):
  // the same as leaving them out. Its JSON reader matches field names whatever their case
  // ("mixhash", "gaslimit"), and so does this one.
  const g = Object.fromEntries(
    Object.entries(json)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [GENESIS_FIELDS.get(k.toLowerCase()) ?? k, v]),
  );
  const config = g.config as Record<string, unknown> | undefined;
  if (typeof config !== 'object' || config === null || config.chainId === undefined) {
    throw new InvalidGenesisError('genesis: config.chainId is required');
  }
  const alloc = (g.alloc ?? {}) as Record<string, Record<string, unknown>>;
  // A DAO fork block without daoForkSupport is the side that did not fork: no state change, and no
  // DAO extra data asked of its blocks (ethereumjs would require it of any daoForkBlock).
  const { daoForkBlock, ...configWithoutDao } = config;
  const withDefaults = {
    ...g,
    config: config.daoForkSupport === true ? config : configWithoutDao,
    gasLimit: g.gasLimit ?? `0x${DEFAULT_GAS_LIMIT.toString(16)}`,
    difficulty: g.difficulty ?? '0x0',
    timestamp: g.timestamp ?? '0x0',
    extraData: g.extraData ?? '0x',
    nonce: g.nonce ?? '0x0',
    mixHash: g.mixHash ?? `0x${'00'.repeat(32)}`,
    coinbase: g.coinbase ?? `0x${'00'.repeat(20)}`,
    alloc,
  } as unknown as GethGenesis;
  let common: Common;
  try {
    common = prepareCommon(
      createCommonFromGethGenesis(withDefaults, { chain: 'l2devnet', hardfork, customCrypto: fastCrypto }),
    );
  } catch (e) {
    throw new InvalidGenesisError(`genesis: ${(e as Error).message}`);
  }
  const entries = Object.entries(alloc).map(([addr, acct]): GenesisAllocation => {
    const hex = addr.startsWith('0x') ? addr : `0x${addr}`;
    if (!/^0x[0-9a-fA-F]{40}$/.test(hex)) throw new InvalidGenesisError(`genesis: alloc key ${addr} is not an address`);
    return {
      address: hexToBytes(hex as `0x${string}`),
      balance: acct.balance === undefined ? 0n : big(acct.balance, `alloc ${addr} balance`),
      nonce: acct.nonce === undefined ? undefined : big(acct.nonce, `alloc ${addr} nonce`),
      code: typeof acct.code === 'string' ? toBytes(acct.code as `0x${string}`) : undefined,
      storage: Object.entries((acct.storage ?? {}) as Record<string, string>).map(([k, v]) => [
        setLengthLeft(toBytes(k as `0x${string}`), 32),
        toBytes(v as `0x${string}`),
      ]),
    };
  });
  return {
    common,
    scheduled: hardfork === undefined,
    alloc: entries,
    gasLimit: big(withDefaults.gasLimit, 'gasLimit'),
    timestamp: g.timestamp === undefined ? undefined : big(g.timestamp, 'timestamp'),
    extraData: toBytes(withDefaults.extraData as `0x${string}`),
    baseFeePerGas: g.baseFeePerGas === undefined ? INITIAL_BASE_FEE : big(g.baseFeePerGas, 'baseFeePerGas'),
    coinbase: toBytes(withDefaults.coinbase as `0x${string}`),
    difficulty: big(withDefaults.difficulty, 'difficulty'),
    nonce: setLengthLeft(toBytes(big(withDefaults.nonce, 'nonce')), 8),
    mixHash: setLengthLeft(toBytes(withDefaults.mixHash as `0x${string}`), 32),
    daoForkBlock:
      config.daoForkSupport === true && daoForkBlock !== undefined && daoForkBlock !== null
        ? big(daoForkBlock, 'config.daoForkBlock')
        : undefined,
    excessBlobGas: g.excessBlobGas === undefined ? undefined : big(g.excessBlobGas, 'excessBlobGas'),
    blobGasUsed: g.blobGasUsed === undefined ? undefined : big(g.blobGasUsed, 'blobGasUsed'),
  };
}

/** Writes the allocations into a fresh state. */
export async function applyAlloc(sm: MerkleStateManager, alloc: GenesisAllocation[]): Promise<void> {
  for (const a of alloc) {
    const address = new Address(a.address);
    await sm.putAccount(address, new Account(a.nonce ?? 0n, a.balance));
    if (a.code !== undefined && a.code.length > 0) await sm.putCode(address, a.code);
    for (const [slot, value] of a.storage ?? []) await sm.putStorage(address, slot, value);
  }
}
