/**
 * Reads: blocks, receipts, transactions, logs and the state at any block. Reads never wait for the
 * chain's queue: they see the state of the block they name, through tries rooted at that block's
 * stateRoot (the working root at the head).
 */
import type { Block } from '@ethereumjs/block';
import { CODEHASH_PREFIX, getMerkleStateProof } from '@ethereumjs/statemanager';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Address,
  concatBytes,
  equalsBytes,
  setLengthLeft,
  bytesToHex,
  KECCAK256_NULL,
  KECCAK256_RLP,
} from '@ethereumjs/util';

import { forkConfigs } from '../config/forkConfig';
import type { ForkConfigs } from '../config/forkConfig';
import { SUGGESTED_TIP } from '../pool/requestTx';
import type { PoolTx } from '../pool/txPool';
import { StateProofUnavailableError } from '../errors';
import { flatStateManager, preimageKey } from '../state/flatState';
import { LineaState } from '../state/linea/lineaState';
import type { LineaAccountProof } from '../state/linea/lineaState';
import { stateCaches } from '../state/stateDb';
import { LruCache } from '../support/lru';
import type { AccountProof, BlockRef, LocatedLog, LogFilter, Receipt } from '../types';
import type { FinalityTags } from './finality';
import type { ChainHead } from './head';

/** Spec, Limits: at most 10,000 results per eth_getLogs query. */
export const MAX_LOG_RESULTS = 10_000;
/** Spec, Limits: an eth_getLogs query must not run longer than 10 seconds. */
export const LOG_QUERY_TIMEOUT_MS = 10_000;

/** How long the chain stays without a new block before Linea's tries catch up with it. */
const LINEA_FOLLOW_IDLE_MS = 250;

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

export interface ChainTransaction {
  tx: TypedTransaction;
  sender: Uint8Array;
  /** Undefined while pending. */
  block?: Block;
  index?: number;
}

/** eth_feeHistory: at most this many blocks per request (geth's limit). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/** eth_feeHistory's answer: per block of the range, and the base fees of the block after it. */
export interface FeeHistory {
  oldestBlock: bigint;
  /** One per block, and the next block's. */
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  /** One per block, and the next block's (0 before Cancun). */
  baseFeePerBlobGas: bigint[];
  blobGasUsedRatio: number[];
  /** Per block, the tip at each requested percentile of the block's gas; when percentiles were asked for. */
  reward?: bigint[][];
}

export interface LogQueryOptions {
  /** eth_getLogs limits; defaults from the spec (10,000 results, 10 s). */
  maxLogResults?: number;
  logQueryTimeoutMs?: number;
}

export class Reads {
  readonly maxLogResults: number;
  readonly logQueryTimeoutMs: number;
  /** Read-only state views by state root, for the blocks read most. */
  private readonly readers = new LruCache<string, MerkleStateManager>(32);
  /** Linea's sparse Merkle state, built when first asked for, then kept up with the head. */
  private linea: LineaState | undefined;
  private lineaFollow: NodeJS.Timeout | undefined;

  constructor(
    private readonly head: ChainHead,
    private readonly finality: FinalityTags,
    opts: LogQueryOptions,
  ) {
    this.maxLogResults = opts.maxLogResults ?? MAX_LOG_RESULTS;
    this.logQueryTimeoutMs = opts.logQueryTimeoutMs ?? LOG_QUERY_TIMEOUT_MS;
  }

  /** The first block this chain holds: 0, or a forked chain's fork block. */
  get firstNumber(): bigint {
    return this.head.store.first;
  }

  headBlock(): Promise<Block> {
    return this.head.block();
  }

  /** The block number a tag or number stands for; undefined when no such block exists. */
  async resolveNumber(ref: BlockRef): Promise<bigint | undefined> {
    const head = this.head.number;
    switch (ref.kind) {
      case 'latest':
      case 'pending':
        return head;
      case 'earliest':
        return 0n;
      case 'finalized':
      case 'safe':
        return this.finality.resolve(ref.kind, head);
      case 'number':
        return ref.number <= head && ref.number >= 0n ? ref.number : undefined;
      case 'hash':
        return this.head.store.getBlockNumber(ref.hash);
    }
  }

  async getBlock(ref: BlockRef): Promise<Block | undefined> {
    const n = await this.resolveNumber(ref);
    return n === undefined ? undefined : this.head.store.getBlock(n);
  }

  getBlockByNumber(n: bigint): Promise<Block | undefined> {
    return this.head.store.getBlock(n);
  }

  /** The sum of the difficulties of blocks 0..n (proof of work; constant after the merge). */
  totalDifficulty(n: bigint): Promise<bigint> {
    return this.head.store.totalDifficulty(n);
  }

  getReceipts(n: bigint): Promise<Receipt[] | undefined> {
    return this.head.store.getReceipts(n);
  }

  /** A mined transaction with its block, or a pending one from the pool. */
  async getTransaction(hash: Uint8Array): Promise<ChainTransaction | undefined> {
    const { store } = this.head;
    const loc = await store.getTxLocation(hash);
    if (loc !== undefined) {
      const block = await store.getBlock(loc.blockNumber);
      const receipts = await store.getReceipts(loc.blockNumber);
      if (block !== undefined && receipts !== undefined) {
        return { tx: block.transactions[loc.index], sender: receipts[loc.index].from, block, index: loc.index };
      }
    }
    const pending = this.head.pool.get(hash);
    return pending === undefined ? undefined : { tx: pending.tx, sender: pending.sender };
  }

  async getReceipt(hash: Uint8Array): Promise<{ receipt: Receipt; block: Block; index: number } | undefined> {
    const { store } = this.head;
    const loc = await store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const [block, receipts] = await Promise.all([store.getBlock(loc.blockNumber), store.getReceipts(loc.blockNumber)]);
    if (block === undefined || receipts === undefined) return undefined;
    return { receipt: receipts[loc.index], block, index: loc.index };
  }

  /** The state root reads at block `n` use: the working root at the head, the block's own otherwise. */
  stateRootAt(n: bigint): Promise<Uint8Array> {
    return this.head.stateRootAt(n);
  }

  /** A read-only view of the state after block `n`. */
  private async stateAt(n: bigint): Promise<MerkleStateManager> {
    const root = await this.head.stateRootAt(n);
    const key = bytesToHex(root);
    let sm = this.readers.get(key);
    if (sm === undefined) {
      const { stateDb, common } = this.head;
      sm = flatStateManager(stateDb, stateDb.flat, common, stateCaches(), { root });
      this.readers.set(key, sm);
    }
    return sm;
  }

  async getAccount(address: Uint8Array, n: bigint): Promise<AccountState> {
    const account = await (await this.stateAt(n)).getAccount(new Address(address));
    return {
      nonce: account?.nonce ?? 0n,
      balance: account?.balance ?? 0n,
      codeHash: account?.codeHash ?? KECCAK256_NULL,
      storageRoot: account?.storageRoot ?? KECCAK256_RLP,
    };
  }

  async getCode(address: Uint8Array, n: bigint): Promise<Uint8Array> {
    return (await this.stateAt(n)).getCode(new Address(address));
  }

  /** Code by its hash (debug_codeByHash); undefined for code the chain never held. */
  async getCodeByHash(codeHash: Uint8Array): Promise<Uint8Array | undefined> {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return new Uint8Array();
    return this.head.stateDb.get(bytesToHex(concatBytes(CODEHASH_PREFIX, codeHash)).slice(2));
  }

  async getStorage(address: Uint8Array, slot: Uint8Array, n: bigint): Promise<Uint8Array> {
    return (await this.stateAt(n)).getStorage(new Address(address), slot);
  }

  /** The transactions from `sender` in the pool now, by nonce. */
  poolTransactionsFrom(sender: Uint8Array): PoolTx[] {
    return this.head.pool.from(sender);
  }

  /** A transaction in the pool now; undefined when it is not there. */
  poolTransaction(hash: Uint8Array): PoolTx | undefined {
    return this.head.pool.get(hash);
  }

  /** The nonce the sender's next transaction should carry, counting pool transactions. */
  async pendingNonce(address: Uint8Array): Promise<bigint> {
    const { nonce } = await this.getAccount(address, this.head.number);
    return this.head.pool.nextNonce(address, nonce);
  }

  /** Whether a pool transaction can go into the next block: no nonce gap before it. */
  async isReady(ptx: PoolTx): Promise<boolean> {
    const { nonce } = await this.getAccount(ptx.sender, this.head.number);
    return this.head.pool.nextNonce(ptx.sender, nonce) > ptx.nonce;
  }

  /** The pool split into transactions ready for the next block and those behind a nonce gap. */
  poolContent(): Promise<{ ready: PoolTx[]; queued: PoolTx[] }> {
    return this.head.pool.partition(async (sender) => (await this.getAccount(sender, this.head.number)).nonce);
  }

  /** How many transactions the pool holds. */
  get poolSize(): number {
    return this.head.pool.size;
  }

  /** How blocks take pool transactions: highest tip first, or by arrival (--order). */
  get poolOrder(): 'fees' | 'fifo' {
    return this.head.pool.order;
  }

  /** The beneficiary of the next block (eth_coinbase). */
  get coinbase(): Uint8Array {
    return this.head.coinbase;
  }

  /** A transaction in the pool; undefined when it is not there. */
  pooled(hash: Uint8Array): PoolTx | undefined {
    return this.head.pool.get(hash);
  }

  /** EIP-1186 proof of an account and storage slots at block `n`. */
  async getProof(address: Uint8Array, slots: Uint8Array[], n: bigint): Promise<AccountProof> {
    const sm = await this.stateAt(n);
    if (this.head.stateDb.flat.fork !== undefined) {
      // A forked trie holds the remote's nodes on a key's path once the key has been read.
      await sm.getAccount(new Address(address));
      for (const slot of slots) await sm.getStorage(new Address(address), setLengthLeft(slot, 32));
    }
    const proof = await getMerkleStateProof(sm, new Address(address), slots);
    const hex = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
    return {
      address,
      balance: BigInt(proof.balance),
      nonce: BigInt(proof.nonce),
      codeHash: hex(proof.codeHash),
      storageHash: hex(proof.storageHash),
      accountProof: proof.accountProof.map(hex),
      // An absent account has the empty storage trie: every slot is zero, with nothing to show.
      storageProof: slots.map((key, i) => {
        const s = proof.storageProof[i];
        return { key, value: s === undefined ? 0n : BigInt(s.value), proof: s === undefined ? [] : s.proof.map(hex) };
      }),
    };
  }

  /**
   * linea_getProof: Linea's sparse-Merkle proof of an account and slots after block `n`, as its
   * state manager answers. Beside an L1 (`--l1`) only a block the L1 has finalized, as on Linea
   * (its docs: "must be an L2 block that has been finalized on L1"); on a chain alone, any block.
   */
  async lineaProof(address: Uint8Array, slots: Uint8Array[], n: bigint): Promise<LineaAccountProof> {
    if (this.finality.following && n > this.finality.resolve('finalized', this.head.number))
      throw new StateProofUnavailableError();
    return this.lineaState().proof(address, slots, Number(n));
  }

  /** Linea's state root after block `n` (what the L1's LineaRollup stores at finalization). */
  lineaStateRoot(n: bigint): Promise<Uint8Array> {
    return this.lineaState().rootAt(Number(n));
  }

  private lineaState(): LineaState {
    const { stateDb, store } = this.head;
    if (stateDb.flat.fork !== undefined || store.first > 0n)
      throw new StateProofUnavailableError(
        "Linea state proofs are not available on a forked chain: its state before the fork block is the upstream's",
      );
    if (this.linea !== undefined) return this.linea;
    this.linea = new LineaState({
      nodes: { get: (hash) => stateDb.get(bytesToHex(hash).slice(2)) },
      preimage: (hash) => stateDb.get(preimageKey(hash)),
      code: async (codeHash) => (await this.getCodeByHash(codeHash)) ?? new Uint8Array(),
      block: async (n) => {
        const block = await store.getBlock(BigInt(n));
        return block === undefined ? undefined : { hash: block.hash(), stateRoot: block.header.stateRoot };
      },
    });
    // Once asked for, the tries follow the head while the node is idle (a moment after the last
    // block), so a proof at the head does not wait for many blocks to be hashed.
    const follow = () => {
      // A chain replaced by anvil_reset moves its listeners to the new one: this one is no longer ours.
      if (!this.head.events.listeners('block').includes(follow)) return;
      clearTimeout(this.lineaFollow);
      this.lineaFollow = setTimeout(() => {
        this.linea?.rootAt(Number(this.head.number)).catch(() => undefined);
      }, LINEA_FOLLOW_IDLE_MS).unref();
    };
    this.head.events.on('block', follow);
    return this.linea;
  }

  getLogs(filter: LogFilter): Promise<LocatedLog[]> {
    return this.head.store.queryLogs(filter, {
      maxResults: this.maxLogResults,
      deadline: performance.now() + this.logQueryTimeoutMs,
    });
  }

  /** Base fee of the next block. */
  nextBaseFee(): Promise<bigint> {
    return this.head.nextBaseFee();
  }

  /**
   * The tip suggested to wallets (eth_maxPriorityFeePerGas, eth_gasPrice, eth_sendTransaction's
   * default): Anvil's 1 gwei, or more where Linea's profitability rule asks more of an ordinary
   * transaction at the pricing in force.
   */
  suggestedTip(): bigint {
    const needed = this.head.rules?.ordinaryTip() ?? 0n;
    return needed > SUGGESTED_TIP ? needed : SUGGESTED_TIP;
  }

  /** Blob base fee of the next block (EIP-4844); 0 before Cancun. */
  async nextBlobBaseFee(): Promise<bigint> {
    const head = await this.head.block();
    const common = this.head.vm.common;
    return common.isActivatedEIP(4844) && head.header.excessBlobGas !== undefined
      ? head.header.calcNextBlobGasPrice(common)
      : 0n;
  }

  /**
   * eth_feeHistory: the last `blockCount` blocks (at most 1,024) up to block `newest`, as geth's
   * oracle reports them (eth/gasprice/feehistory.go): base fees and gas ratios, for blobs too, and the
   * tips paid at `percentiles` of each block's gas. Where Linea's rules apply, a block without
   * transactions reports the suggested tip rather than geth's 0: clients (alloy, so cast and forge)
   * take their tip from these rewards, and fall back to 1 wei, which the sequencer refuses.
   */
  async feeHistory(blockCount: number, newest: bigint, percentiles?: number[]): Promise<FeeHistory> {
    // A forked chain's blocks before its fork block are the remote's, not counted here.
    const n = Math.min(blockCount, MAX_FEE_HISTORY_BLOCKS, Number(newest - this.head.store.first) + 1);
    const out: FeeHistory = {
      oldestBlock: newest - BigInt(n) + 1n,
      baseFeePerGas: [],
      gasUsedRatio: [],
      baseFeePerBlobGas: [],
      blobGasUsedRatio: [],
      reward: percentiles === undefined ? undefined : [],
    };
    let last: Block | undefined;
    const emptyReward = this.head.rules === undefined ? 0n : this.suggestedTip();
    for (let b = out.oldestBlock; b <= newest; b++) {
      const block = await this.head.store.getBlock(b);
      if (block === undefined) break;
      last = block;
      const h = block.header;
      const baseFee = h.baseFeePerGas ?? 0n;
      out.baseFeePerGas.push(baseFee);
      out.gasUsedRatio.push(Number(h.gasUsed) / Number(h.gasLimit));
      out.baseFeePerBlobGas.push(h.excessBlobGas === undefined ? 0n : h.getBlobGasPrice());
      const maxBlobGas = h.blobGasUsed === undefined ? 0n : h.common.param('maxBlobGasPerBlock');
      out.blobGasUsedRatio.push(maxBlobGas === 0n ? 0 : Number(h.blobGasUsed) / Number(maxBlobGas));
      if (percentiles !== undefined)
        out.reward?.push(
          rewards((await this.head.store.getReceipts(b)) ?? [], h.gasUsed, baseFee, percentiles, emptyReward),
        );
    }
    const common = this.head.common;
    const h = last?.header;
    out.baseFeePerGas.push(h !== undefined && common.isActivatedEIP(1559) ? h.calcNextBaseFee() : 0n);
    out.baseFeePerBlobGas.push(h?.excessBlobGas === undefined ? 0n : h.calcNextBlobGasPrice(h.common));
    return out;
  }

  /** EIP-7910 (eth_config): the current, next and last fork's configuration. */
  async forkConfigs(): Promise<ForkConfigs> {
    const { store, common, scheduled } = this.head;
    const genesis = (await store.getBlock(store.first)) as Block;
    const head = await this.head.block();
    return forkConfigs(common, scheduled, genesis.header, head.header.timestamp);
  }
}

/**
 * The tips paid at `percentiles` of a block's gas, its receipts sorted by tip (geth's oracle);
 * `empty` at each for a block without transactions.
 */
function rewards(
  receipts: Receipt[],
  gasUsed: bigint,
  baseFee: bigint,
  percentiles: number[],
  empty: bigint,
): bigint[] {
  const tips = receipts
    .map((r) => ({ tip: r.effectiveGasPrice - baseFee, gas: r.gasUsed }))
    .sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  return percentiles.map((p) => {
    if (tips.length === 0) return empty;
    const threshold = (Number(gasUsed) * p) / 100;
    let sum = 0;
    for (const t of tips) {
      sum += Number(t.gas);
      if (sum >= threshold) return t.tip;
    }
    return tips[tips.length - 1].tip;
  });
}
