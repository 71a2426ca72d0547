/**
 * Devnet control: what test suites do to the chain that no transaction can (Anvil's and Hardhat's
 * evm_* and anvil_* methods). State edits at the head, time, the next block's fields, snapshots,
 * rollbacks and reorgs, the pool, finality. Every change runs in the chain's queue, so none lands in
 * the middle of a block being built.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { randomBytes } from 'node:crypto';

import { Address, createAccount, equalsBytes } from '@ethereumjs/util';
import type { Account } from '@ethereumjs/util';

import { InvalidArgumentError, InvalidTimestampError } from '../errors';
import { delPoolRow } from '../pool/poolRows';
import type { PoolTx } from '../pool/txPool';
import { setChainId } from '../config/preparedCommon';
import type { ForkSource } from '../fork/forkState';
import { dumpState, listState, loadState } from '../state/stateDump';
import type { ListedAccount, LoadedAccount } from '../state/stateDump';
import type { Admission } from './admission';
import type { Finality, FinalityTags } from './finality';
import type { ChainHead } from './head';
import type { Miner } from './miner';
import { storeChainId } from './open';

interface Snapshot {
  head: bigint;
  root: Uint8Array;
  pool: PoolTx[];
  clockOffsetMs: number;
  nextTimestamp: bigint | undefined;
  nextBaseFee: bigint | undefined;
}

export class DevControl {
  private readonly snapshots = new Map<bigint, Snapshot>();
  /** Anvil's first snapshot id is 0. */
  private nextSnapshotId = 0n;
  /** Whether the node prints what it mines and serves (anvil_setLoggingEnabled); its printers read it. */
  loggingEnabled = true;
  /** This run of the chain, as Anvil's anvil_metadata names it: new at every start and reset. */
  instanceId: Uint8Array = randomBytes(32);
  /** The remote anvil_reset forks when its `forking` names none (anvil_setRpcUrl on a chain that is no fork). */
  rpcUrl: string | undefined;

  /**
   * anvil_setChainId: the chain's id from now on, for new transactions, CHAINID and eth_chainId, kept
   * in its data directory. Refused once the chain holds a transaction or a pool transaction: those
   * are signed for the id they were sent with, and the stored ones decode against the chain's.
   */
  setChainId(chainId: bigint): Promise<void> {
    return this.head.exclusive(async () => {
      if (chainId === this.head.common.chainId()) return;
      const holding = this.head.pool.size > 0 || (await this.holdsTransactions());
      if (holding)
        throw new InvalidArgumentError(
          `the chain id can change only before the chain holds a transaction (it has one signed for ${this.head.common.chainId()}); start a node with --chain-id ${chainId}, or anvil_reset first`,
        );
      setChainId(this.head.common, chainId);
      await storeChainId(this.head.kv, chainId);
      this.leaveWorkers();
    });
  }

  /** Whether any block from the first to the head holds a transaction. */
  private async holdsTransactions(): Promise<boolean> {
    for (let n = this.head.store.first; n <= this.head.number; n++)
      if (((await this.head.store.getBlock(n))?.transactions.length ?? 0) > 0) return true;
    return false;
  }

  /**
   * anvil_setRpcUrl: a forked chain reads its remote state from `source` from now on (every answer
   * is still proven against the fork block's root); a chain that is no fork keeps `url` for anvil_reset.
   */
  setRpcUrl(url: string, source: ForkSource): void {
    const fork = this.head.stateDb.flat.fork;
    if (fork !== undefined) fork.source = source;
    else this.rpcUrl = url;
  }

  constructor(
    private readonly head: ChainHead,
    private readonly finality: FinalityTags,
    private readonly miner: Miner,
    /** Calls and traces leave the call workers, whose chains keep the old chain id. */
    private readonly leaveWorkers: () => void,
    private readonly txs: Admission,
  ) {}

  // ---------------------------------------------------------------- the next block

  /** Sets the timestamp of the next block (evm_setNextBlockTimestamp); it must be after the head's. */
  setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    return this.head.exclusive(async () => {
      const head = await this.head.block();
      if (timestamp <= head.header.timestamp) throw new InvalidTimestampError(timestamp, head.header.timestamp);
      this.head.nextTimestamp = timestamp;
      // Transactions sent from now on are checked under the next block's fork.
      this.head.setForkAt(head.header.number + 1n, timestamp);
    });
  }

  /** The next block's base fee (anvil_setNextBlockBaseFeePerGas); one block only. */
  setNextBlockBaseFee(baseFee: bigint): Promise<void> {
    return this.head.exclusive(async () => {
      this.head.nextBaseFeeOverride = baseFee;
    });
  }

  /** The gas limit of the blocks from the next one on (evm_setBlockGasLimit). */
  setBlockGasLimit(gasLimit: bigint): Promise<void> {
    return this.head.exclusive(async () => {
      this.head.gasLimit = gasLimit;
    });
  }

  /** The beneficiary of the blocks from the next one on (anvil_setCoinbase). */
  setCoinbase(address: Uint8Array): Promise<void> {
    return this.head.exclusive(async () => {
      this.head.coinbase = address;
    });
  }

  // ---------------------------------------------------------------- time

  get timestampInterval(): bigint | undefined {
    return this.head.timestampInterval;
  }

  /** Each block from the next on `seconds` after its parent (anvil_setBlockTimestampInterval); undefined goes back to the clock. */
  setTimestampInterval(seconds: bigint | undefined): Promise<void> {
    return this.head.exclusive(async () => {
      this.head.timestampInterval = seconds;
    });
  }

  /** Moves node time to `ms` since the epoch (anvil_setTime, evm_increaseTime); returns the offset from the wall clock in ms. */
  setTime(ms: number): Promise<number> {
    return this.head.exclusive(async () => {
      this.head.clock.set(ms);
      return this.head.clock.offset;
    });
  }

  // ---------------------------------------------------------------- accounts and the pool

  /** eth_sendTransaction may send from `address` without its key (anvil_impersonateAccount). */
  impersonate(address: Uint8Array): void {
    this.txs.impersonate(address);
  }

  stopImpersonating(address: Uint8Array): void {
    this.txs.stopImpersonating(address);
  }

  /** Transactions whose fee cap is below `price` are refused from now on (anvil_setMinGasPrice). */
  setMinGasPrice(price: bigint): Promise<void> {
    return this.txs.setMinGasPrice(price);
  }

  /** eth_sendTransaction may send from any address (anvil_autoImpersonateAccount). */
  setAutoImpersonate(on: boolean): void {
    this.txs.autoImpersonate = on;
  }

  /** Removes every pool transaction, or those of `sender` (anvil_dropAllTransactions, anvil_removePoolTransactions). */
  dropTransactions(sender?: Uint8Array): Promise<number> {
    return this.head.exclusive(() => this.dropPoolLocked(sender));
  }

  /** Drops the pool's transactions (all, or `sender`'s) and their rows; inside the chain's queue. */
  private async dropPoolLocked(sender?: Uint8Array): Promise<number> {
    const dropped = this.head.pool.all().filter((p) => sender === undefined || equalsBytes(p.sender, sender));
    for (const ptx of dropped) this.head.pool.remove(ptx.hash);
    await this.head.store.write(dropped.map((ptx) => delPoolRow(ptx.hash)));
    return dropped.length;
  }

  /** Removes a transaction from the pool (anvil_dropTransaction); false if it was not there. */
  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.head.exclusive(async () => {
      if (this.head.pool.remove(hash) === undefined) return false;
      await this.head.store.write([delPoolRow(hash)]);
      return true;
    });
  }

  // ---------------------------------------------------------------- state at the head

  /**
   * Edits the head state directly (anvil_setBalance and friends). No block is mined: reads at the
   * head see the edit at once and the next block includes it. The edited root is kept in the
   * database with the nodes it created.
   */
  editState(edit: (sm: MerkleStateManager) => Promise<void>): Promise<void> {
    return this.head.exclusive(async () => {
      const sm = this.head.state;
      await sm.checkpoint();
      try {
        await edit(sm);
        await sm.commit();
      } catch (e) {
        await sm.revert();
        throw e;
      }
      await this.head.setWorkingRoot(await sm.getStateRoot());
    });
  }

  /** Adds `amount` wei to an account's balance (anvil_addBalance). */
  addBalance(address: Uint8Array, amount: bigint): Promise<void> {
    return this.editAccount(address, (account) => {
      account.balance += amount;
    });
  }

  /** Sets an account's balance and/or nonce. */
  setAccount(address: Uint8Array, fields: { balance?: bigint; nonce?: bigint }): Promise<void> {
    return this.editAccount(address, (account) => {
      if (fields.balance !== undefined) account.balance = fields.balance;
      if (fields.nonce !== undefined) account.nonce = fields.nonce;
    });
  }

  /** Changes an account at the head, creating it if need be. */
  private editAccount(address: Uint8Array, change: (account: Account) => void): Promise<void> {
    return this.editState(async (sm) => {
      const a = new Address(address);
      const account = (await sm.getAccount(a)) ?? createAccount({});
      change(account);
      await sm.putAccount(a, account);
    });
  }

  async setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    await this.editState((sm) => sm.putCode(new Address(address), code));
  }

  async setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    await this.editState(async (sm) => {
      const a = new Address(address);
      if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, createAccount({}));
      await sm.putStorage(a, slot, value);
    });
  }

  /**
   * The head state listed by address and slot, with the head block it is the state of (Anvil's
   * anvil_dumpState); undefined when a key's preimage is not known (state/stateDump.ts listState).
   */
  listState(): Promise<{ accounts: ListedAccount[]; head: BlockHeader } | undefined> {
    return this.head.exclusive(async () => {
      const accounts = await listState(this.head.stateDb, this.head.common, this.head.workingRoot);
      return accounts === undefined ? undefined : { accounts, head: (await this.head.block()).header };
    });
  }

  /**
   * Merges accounts into the head state as Anvil loads its dump (anvil_loadState, --load-state): each
   * takes the balance, nonce and code given, and the slots given are written over its own.
   */
  loadAccounts(accounts: LoadedAccount[]): Promise<void> {
    return this.editState(async (sm) => {
      for (const listed of accounts) {
        const a = new Address(listed.address);
        const account = (await sm.getAccount(a)) ?? createAccount({});
        if (listed.balance !== undefined) account.balance = listed.balance;
        if (listed.nonce !== undefined) account.nonce = listed.nonce;
        await sm.putAccount(a, account);
        if (listed.code !== undefined && listed.code.length > 0) await sm.putCode(a, listed.code);
        for (const [slot, value] of listed.storage ?? []) await sm.putStorage(a, slot, value);
      }
    });
  }

  /** The whole head state as one blob (anvil_dumpState). */
  dumpState(): Promise<Uint8Array> {
    return this.head.exclusive(() => dumpState(this.head.stateDb, this.head.common, this.head.workingRoot));
  }

  /** Merges a dump into the head state (anvil_loadState, as Anvil); returns the new state root. */
  loadState(blob: Uint8Array): Promise<Uint8Array> {
    return this.head.exclusive(async () => {
      let root: Uint8Array;
      try {
        root = await loadState(this.head.stateDb, this.head.common, blob, this.head.workingRoot);
      } catch (e) {
        this.head.stateDb.discardPending();
        throw e;
      }
      await this.head.setWorkingRoot(root);
      return root;
    });
  }

  // ---------------------------------------------------------------- finality

  /**
   * Sets `safe` and `finalized` to these blocks (finalized ≤ safe ≤ head), kept across restarts, as a
   * node following a chain hears them from its consensus client; undefined goes back to depths
   * behind the head (--safe-depth, --finality-depth).
   */
  setFinality(finality: Finality | undefined): Promise<void> {
    return this.head.exclusive(() => this.finality.set(finality, this.head.number));
  }

  /** `safe` and `finalized` at `block` (the head while it is above it) until told otherwise, not kept across restarts (FinalityTags.follow). */
  followFinality(block: bigint): Promise<void> {
    return this.head.exclusive(async () => this.finality.follow(block));
  }

  // ---------------------------------------------------------------- snapshots, rollbacks, reorgs

  /** Remembers the chain as it is now; `revertTo(id)` comes back to it (evm_snapshot). */
  snapshot(): Promise<bigint> {
    return this.head.exclusive(async () => {
      const id = this.nextSnapshotId++;
      this.snapshots.set(id, {
        head: this.head.number,
        root: this.head.workingRoot,
        pool: this.head.pool.all(),
        clockOffsetMs: this.head.clock.offset,
        nextTimestamp: this.head.nextTimestamp,
        nextBaseFee: this.head.nextBaseFeeOverride,
      });
      return id;
    });
  }

  /** The snapshots kept, each id with the head block it was taken at (anvil_metadata). */
  snapshotHeads(): [bigint, bigint][] {
    return [...this.snapshots].map(([id, snap]) => [id, snap.head]);
  }

  /**
   * Goes back to snapshot `id`: later blocks, their indexes and the pool are dropped, the clock
   * offset restored. The snapshot and every later one are used up (as in Hardhat and Anvil).
   * Returns false for an unknown id.
   */
  revertTo(id: bigint): Promise<boolean> {
    return this.head.exclusive(async () => {
      const snap = this.snapshots.get(id);
      if (snap === undefined) return false;
      for (const later of [...this.snapshots.keys()]) if (later >= id) this.snapshots.delete(later);
      await this.dropAbove(snap.head, snap.root);
      const { pool } = this.head;
      pool.clear();
      for (const ptx of snap.pool) pool.add(ptx);
      await this.head.persistPool();
      this.head.clock.offset = snap.clockOffsetMs;
      this.head.nextTimestamp = snap.nextTimestamp;
      this.head.nextBaseFeeOverride = snap.nextBaseFee;
      return true;
    });
  }

  /**
   * Back to the chain as it started (anvil_reset): its first block (genesis, or the fork block) its
   * head with the state it started with,
   * an empty pool, no snapshots, the clock and the next block's overrides as at start. Exclusion
   * records and line limits stay.
   */
  reset(): Promise<void> {
    return this.head.exclusive(async () => {
      this.snapshots.clear();
      await this.dropPoolLocked();
      await this.dropAbove(this.head.store.first, this.head.startRoot);
      this.head.clock.offset = 0;
      this.head.nextTimestamp = undefined;
      this.head.nextBaseFeeOverride = undefined;
      this.head.timestampInterval = undefined;
      this.instanceId = randomBytes(32);
    });
  }

  /** Drops the last `depth` blocks (anvil_rollback). */
  rollback(depth: bigint): Promise<void> {
    return this.head.exclusive(() => this.dropLast(depth, 'roll back'));
  }

  /**
   * Replaces the last `depth` blocks with `depth` new ones (anvil_reorg); `txs[i]` go into the
   * i-th new block.
   */
  reorg(depth: bigint, txs: { tx: TypedTransaction; sender: Uint8Array; block: number }[]): Promise<void> {
    return this.head.exclusive(async () => {
      await this.dropLast(depth, 'reorganise');
      const { pool, clock } = this.head;
      const saved = pool.all();
      pool.clear();
      try {
        for (let i = 0; i < Number(depth); i++) {
          for (const t of txs.filter((x) => x.block === i)) {
            pool.add({ tx: t.tx, hash: t.tx.hash(), sender: t.sender, nonce: t.tx.nonce, addedAt: clock.now() });
          }
          await this.miner.mineLocked();
        }
      } finally {
        for (const ptx of saved) {
          try {
            if (pool.get(ptx.hash) === undefined) pool.add(ptx);
          } catch {
            // Its (sender, nonce) slot was taken by a reorg transaction: the reorg wins.
          }
        }
        await this.head.dropStale();
        await this.head.persistPool();
      }
    });
  }

  /** Drops the last `depth` blocks, back to the state of the block below them. */
  private async dropLast(depth: bigint, what: string): Promise<void> {
    const target = this.head.number - depth;
    if (depth <= 0n || target < this.head.store.first)
      throw new InvalidArgumentError(`cannot ${what} ${depth} blocks from block ${this.head.number}`);
    const block = (await this.head.store.getBlock(target)) as Block;
    await this.dropAbove(target, block.header.stateRoot);
  }

  /** Drops the blocks above `n`; `safe`, `finalized` and snapshots come down with them. */
  private async dropAbove(n: bigint, root: Uint8Array): Promise<void> {
    const clamp = this.finality.clampTo(n);
    const removedLogs = await this.head.dropAbove(n, root, clamp.ops);
    clamp.apply();
    // Snapshots of blocks that no longer exist cannot be gone back to.
    for (const [id, snap] of this.snapshots) if (snap.head > n) this.snapshots.delete(id);
    this.head.events.emit('reorg', n, removedLogs);
  }
}
