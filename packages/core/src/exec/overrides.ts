/**
 * geth's overrides of one simulated use (eth_call, debug_traceCall, eth_simulateV1): account state
 * (balance, nonce, code, storage), precompiles moved or removed (movePrecompileToAddress), and the
 * block context. The state edits are undone with the use's checkpoint; the precompile map is put back
 * by `restore` at the end of each use.
 */
import { createBlock } from '@ethereumjs/block';
import type { Block } from '@ethereumjs/block';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { Address, bytesToUnprefixedHex, createAccount } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { gethAddress, InvalidArgumentError, StateOverrideError } from '../errors';
import type { BlockOverrides } from './tracers/tracer';

/** geth's per-account state override (the optional third param of eth_call). */
export interface StateOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage. */
  state?: [Uint8Array, Uint8Array][];
  /** Patches single slots. */
  stateDiff?: [Uint8Array, Uint8Array][];
  /** The precompile at `address` runs at this address instead (geth's movePrecompileToAddress). */
  movePrecompileTo?: Uint8Array;
}

export class Overrides {
  /** This use's overrides moved or removed precompiles: the fork's set is put back after it. */
  private changed = false;

  constructor(private readonly vm: VM) {}

  /** The EVM's precompiles: address (unprefixed hex) to function; state overrides may change them for one use. */
  get precompiles(): Map<string, unknown> {
    return (this.vm.evm as unknown as { _precompiles: Map<string, unknown> })._precompiles;
  }

  private set precompiles(map: Map<string, unknown>) {
    (this.vm.evm as unknown as { _precompiles: Map<string, unknown> })._precompiles = map;
  }

  /**
   * The fork's precompile addresses, whatever this use's overrides moved: they are warm in every
   * transaction (geth's StateDB.Prepare takes vm.ActivePrecompiles(rules)).
   */
  forkPrecompiles(): ReadonlyMap<string, unknown> {
    return this.changed ? getActivePrecompiles(this.vm.common) : this.precompiles;
  }

  /** Puts back the fork's precompiles (as the EVM builds them on a fork change) after overrides changed them. */
  restore(): void {
    if (!this.changed) return;
    this.precompiles = getActivePrecompiles(this.vm.common);
    this.changed = false;
  }

  /**
   * geth's state overrides (override.StateOverride.Apply), in address order: an overridden precompile
   * address is a precompile no more, and `movePrecompileTo` runs its precompile at another address
   * (not one overridden in the same set, nor a destination of another move) for this use.
   */
  async apply(overrides: StateOverride[]): Promise<Uint8Array[]> {
    const sm = this.vm.stateManager;
    // Each set starts from the fork's precompiles: a simulated block's moves are not the next one's.
    this.restore();
    const hex = (a: Uint8Array) => bytesToUnprefixedHex(a);
    const overridden = new Set(overrides.map((o) => hex(o.address)));
    const moved = new Set<string>();
    const sorted = [...overrides].sort((a, b) => (hex(a.address) < hex(b.address) ? -1 : 1));
    for (const o of sorted) {
      const key = hex(o.address);
      if (moved.has(key))
        throw new StateOverrideError(`account ${gethAddress(o.address)} has already been overridden by a precompile`);
      const precompile = this.precompiles.get(key);
      if (precompile !== undefined || o.movePrecompileTo !== undefined) {
        // The first change of this use: a map of its own, the EVM's left as it is.
        if (!this.changed) {
          this.precompiles = new Map(this.precompiles);
          this.changed = true;
        }
      }
      if (o.movePrecompileTo !== undefined) {
        if (precompile === undefined)
          throw new StateOverrideError(`account ${gethAddress(o.address)} is not a precompile`);
        const to = hex(o.movePrecompileTo);
        if (overridden.has(to))
          throw new StateOverrideError(`account ${gethAddress(o.movePrecompileTo)} is already overridden`);
        this.precompiles.set(to, precompile);
        moved.add(to);
      }
      if (precompile !== undefined) this.precompiles.delete(key);
    }
    for (const o of overrides) {
      const address = new Address(o.address);
      const account = (await sm.getAccount(address)) ?? createAccount({});
      if (o.balance !== undefined) account.balance = o.balance;
      if (o.nonce !== undefined) account.nonce = o.nonce;
      await sm.putAccount(address, account);
      if (o.code !== undefined) await sm.putCode(address, o.code);
      if (o.state !== undefined) {
        await sm.clearStorage(address);
        for (const [k, v] of o.state) await sm.putStorage(address, k, v);
      }
      for (const [k, v] of o.stateDiff ?? []) await sm.putStorage(address, k, v);
    }
    return overrides.map((o) => o.address);
  }

  /** The block context with geth's block overrides applied. */
  block(block: Block, o: BlockOverrides | undefined): Block {
    if (o === undefined) return block;
    const header = {
      ...block.header.toJSON(),
      // A call's context, not the mined block: nothing of it is used yet.
      gasUsed: 0n,
      ...(o.number !== undefined && { number: o.number }),
      ...(o.time !== undefined && { timestamp: o.time }),
      ...(o.gasLimit !== undefined && { gasLimit: o.gasLimit }),
      ...(o.coinbase !== undefined && { coinbase: o.coinbase }),
      ...(o.random !== undefined && { mixHash: o.random }),
      ...(o.baseFee !== undefined && { baseFeePerGas: o.baseFee }),
    };
    try {
      return createBlock({ header }, { common: this.vm.common });
    } catch (e) {
      throw new InvalidArgumentError(`block overrides: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}
