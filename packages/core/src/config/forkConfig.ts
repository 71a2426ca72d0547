/**
 * EIP-7910 (eth_config): the configuration of the fork the chain is in, of the next scheduled one
 * and of the last, as go-ethereum's BlockChainAPI.Config assembles them. Only forks activated by
 * time (Shanghai on) have one: before Shanghai, `current` is null. The fork id is EIP-2124's CRC32
 * over the genesis hash and every fork activation up to the fork, as geth's forkid.NewID.
 */
import { crc32 } from 'node:zlib';

import { Mainnet } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { paramsBlock } from '@ethereumjs/block';
import type { BlockHeader } from '@ethereumjs/block';
import { bigIntToBytes, concatBytes, hexToBytes, intToBytes, setLengthLeft } from '@ethereumjs/util';

import { SYSTEM_CONTRACTS } from './systemContracts';

export interface ForkConfig {
  /** 0 when the fork is active from genesis. */
  activationTime: bigint;
  blobSchedule: { target: bigint; max: bigint; baseFeeUpdateFraction: bigint } | null;
  chainId: bigint;
  forkId: Uint8Array;
  precompiles: Record<string, Uint8Array>;
  systemContracts: Record<string, Uint8Array>;
}

export interface ForkConfigs {
  current: ForkConfig | null;
  next: ForkConfig | null;
  last: ForkConfig | null;
}

/** go-ethereum's precompile names (core/vm/contracts.go), by address. */
const PRECOMPILE_NAMES: Record<number, string> = {
  0x01: 'ECREC',
  0x02: 'SHA256',
  0x03: 'RIPEMD160',
  0x04: 'ID',
  0x05: 'MODEXP',
  0x06: 'BN254_ADD',
  0x07: 'BN254_MUL',
  0x08: 'BN254_PAIRING',
  0x09: 'BLAKE2F',
  0x0a: 'KZG_POINT_EVALUATION',
  0x0b: 'BLS12_G1ADD',
  0x0c: 'BLS12_G1MSM',
  0x0d: 'BLS12_G2ADD',
  0x0e: 'BLS12_G2MSM',
  0x0f: 'BLS12_PAIRING_CHECK',
  0x10: 'BLS12_MAP_FP_TO_G1',
  0x11: 'BLS12_MAP_FP2_TO_G2',
  0x100: 'P256VERIFY',
};

/** A fork and the time it starts at; a fixed-fork chain has its one fork from genesis. */
interface TimedFork {
  name: string;
  time: bigint;
}

/**
 * The configurations of a chain whose genesis is `genesis`, at `headTime`. `scheduled` is false for
 * a chain on one fixed fork (a dev chain), whose fork is active from genesis.
 */
export function forkConfigs(common: Common, scheduled: boolean, genesis: BlockHeader, headTime: bigint): ForkConfigs {
  const timed: TimedFork[] = scheduled
    ? common
        .hardforks()
        .filter((hf) => hf.timestamp !== undefined && hf.timestamp !== null)
        .map((hf) => ({ name: hf.name, time: BigInt(hf.timestamp as string | number) }))
    : common.gteHardfork('shanghai')
      ? [{ name: common.hardfork(), time: genesis.timestamp }]
      : [];
  const activation = scheduled ? activations(common, genesis.timestamp) : [];
  const assemble = (fork: TimedFork | undefined): ForkConfig | null =>
    fork === undefined ? null : forkConfig(common, fork, genesis, activation);
  const passed = timed.filter((f) => f.time <= headTime);
  const next = timed.find((f) => f.time > headTime);
  return {
    current: assemble(passed.at(-1)),
    next: assemble(next),
    last: next === undefined ? null : assemble(timed.at(-1)),
  };
}

/** Every fork activation EIP-2124 counts, in order: block numbers after 0, then times after genesis. */
function activations(common: Common, genesisTime: bigint): { at: bigint; byTime: boolean }[] {
  const out: { at: bigint; byTime: boolean }[] = [];
  for (const hf of common.hardforks()) {
    if (hf.name === 'paris') continue; // the merge by total difficulty does not change the fork id
    const byTime = hf.timestamp !== undefined && hf.timestamp !== null;
    const raw = byTime ? hf.timestamp : hf.block;
    if (raw === null || raw === undefined) continue;
    const at = BigInt(raw);
    if (byTime ? at <= genesisTime : at === 0n) continue;
    if (out.at(-1)?.at === at && out.at(-1)?.byTime === byTime) continue;
    out.push({ at, byTime });
  }
  return out;
}

function forkConfig(
  base: Common,
  fork: TimedFork,
  genesis: BlockHeader,
  activation: { at: bigint; byTime: boolean }[],
): ForkConfig {
  const common = base.copy();
  common.updateParams(paramsBlock); // the blob parameters
  common.setHardfork(fork.name);
  const counted = activation.filter((a) => !a.byTime || a.at <= fork.time);
  const forkId = intToBytes(
    crc32(concatBytes(genesis.hash(), ...counted.map((a) => setLengthLeft(bigIntToBytes(a.at), 8)))) >>> 0,
  );
  const precompiles: Record<string, Uint8Array> = {};
  for (const address of getActivePrecompiles(common).keys()) {
    const name = PRECOMPILE_NAMES[parseInt(address, 16)];
    if (name !== undefined) precompiles[name] = hexToBytes(`0x${address}`);
  }
  const systemContracts: Record<string, Uint8Array> = {};
  for (const c of SYSTEM_CONTRACTS) if (common.isActivatedEIP(c.eip)) systemContracts[c.name] = hexToBytes(c.address);
  // The address deposits are read from (EIP-6110): the genesis file's, else mainnet's, as ethereumjs.
  const deposit = (common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams
    .depositContractAddress;
  if (common.isActivatedEIP(6110))
    systemContracts.DEPOSIT_CONTRACT_ADDRESS = hexToBytes((deposit ?? Mainnet.depositContractAddress) as `0x${string}`);
  let blobSchedule: ForkConfig['blobSchedule'] = null;
  if (common.isActivatedEIP(4844)) {
    const schedule = common.getBlobGasSchedule();
    const perBlob = common.param('blobGasPerBlob');
    blobSchedule = {
      target: schedule.targetBlobGasPerBlock / perBlob,
      max: schedule.maxBlobGasPerBlock / perBlob,
      baseFeeUpdateFraction: schedule.blobGasPriceUpdateFraction,
    };
  }
  return {
    activationTime: fork.time > genesis.timestamp ? fork.time : 0n,
    blobSchedule,
    chainId: common.chainId(),
    forkId: setLengthLeft(forkId, 4),
    precompiles,
    systemContracts,
  };
}
