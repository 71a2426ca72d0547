/**
 * Builds one block on top of `parent` from candidate transactions, on the VM it is given.
 *
 * Each transaction runs inside its own journal checkpoint, so one that cannot be included is undone
 * without touching the others:
 *  - invalid at execution time (nonce or balance moved since it entered the pool): dropped;
 *  - its own line count for a module is above the module's limit: dropped and reported as excluded;
 *  - it fits alone but not in what is left of the block's gas: deferred to a later block, together
 *    with the sender's later nonces, and selection goes on;
 *  - it fits alone but not in what is left of a module's lines (BLOCK_MODULE_LINE_COUNT_FULL):
 *    selection stops, and it and every later candidate wait for the next block;
 *  - `screen` decides it before it runs (a forced exclusion, a denied address): excluded or dropped.
 * The whole block runs inside one outer checkpoint that the caller commits (mining) or reverts
 * (the `pending` block preview).
 */
import { Block as BlockClass, createBlock, createBlockHeader, genRequestsRoot } from '@ethereumjs/block';
import type { Block, BlockHeader, HeaderData } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'ethereum-cryptography/keccak';
import { sha256 } from 'ethereum-cryptography/sha256';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  bytesToHex,
  Address,
  createAddressFromString,
  equalsBytes,
  GWEI_TO_WEI,
  hexToBytes,
  intToBytes,
  KECCAK256_RLP_ARRAY,
  setLengthLeft,
} from '@ethereumjs/util';
import type { CLRequest, CLRequestType, Withdrawal } from '@ethereumjs/util';
import {
  accumulateParentBeaconBlockRoot,
  accumulateParentBlockHash,
  accumulateRequests,
  applyDAOHardfork,
  Bloom,
  calculateMinerReward,
  rewardAccount,
} from '@ethereumjs/vm';
import type { VM, RunTxResult } from '@ethereumjs/vm';

import type { LineCounts } from '../lines/conflation';
import type { LineCounter } from '../lines/lineCounter';
import type { LineLimits, LineOverflow } from '../lines/lineLimits';
import type { BlockRules } from '../pool/sequencerRules';
import { maxFeeOf } from '../pool/txPool';
import type { PoolTx } from '../pool/txPool';
import { encodeReceipt } from '../store/receiptEncoding';
import { STOCK_EVM } from '../state/flatState';
import { SYSTEM_CONTRACTS } from '../config/systemContracts';
import { orderedTrieRoot } from '../state/updateTrie';
import type { Receipt } from '../types';
import { runTransaction } from './onEngine';

export interface BuildInput {
  vm: VM;
  header: HeaderData;
  candidates: PoolTx[];
  lineCounter: LineCounter;
  limits: LineLimits | undefined;
  /** Decides a transaction before it runs: excluded (a forced exclusion), dropped (a denied address), or run. */
  screen?: (ptx: PoolTx) => { overflow: LineOverflow } | { error: Error } | undefined;
  /** What the block carries besides transactions: ommers (proof of work) and withdrawals (Shanghai on). */
  body?: BlockBody;
  /** The DAO fork's block on a chain that supports it: that block first moves the DAO's funds. */
  daoForkBlock?: bigint;
  /** Linea's block-building selectors beyond line counts (block calldata, user gas), when its rules apply. */
  blockRules?: BlockRules;
  /** Forced transactions (linea_sendForcedRawTransaction), tried first, in order. */
  forced?: PoolTx[];
  /** Most transactions the block takes; the candidates past it wait for a later block. */
  maxTransactions?: number;
  /** Bundles for this block, tried before the candidates, each whole or not at all. */
  bundles?: BundleInput[];
  /** The most gas the bundles of a block may use together (`--plugin-linea-max-bundle-block-gas`). */
  maxBundleBlockGas?: bigint;
}

/** `--plugin-linea-max-bundle-block-gas`'s default (LineaTransactionSelectorCliOptions). */
export const DEFAULT_MAX_BUNDLE_BLOCK_GAS = 15_000_000n;

/** A bundle's transactions, in order, and the hashes (hex) of those allowed to revert. */
export interface BundleInput {
  txs: PoolTx[];
  revertible: Set<string>;
}

/** The extra data geth requires of the DAO fork's block and the nine after it (params.DAOForkBlockExtra). */
export const DAO_FORK_EXTRA = new TextEncoder().encode('dao-hard-fork');

export interface BlockBody {
  uncles: BlockHeader[];
  withdrawals: Withdrawal[];
}

const EMPTY_BODY: BlockBody = { uncles: [], withdrawals: [] };

export interface Excluded {
  ptx: PoolTx;
  overflow: LineOverflow;
  /** Excluded by a forced exclusion rule, not by its own count. */
  forced?: boolean;
}

export interface BuildResult {
  block: Block;
  receipts: Receipt[];
  included: PoolTx[];
  excluded: Excluded[];
  dropped: { ptx: PoolTx; error: Error }[];
  deferred: PoolTx[];
  lineTotals: LineCounts;
  /**
   * The module whose block total the next candidate would have pushed past its limit, when that
   * stopped the selection (BLOCK_MODULE_LINE_COUNT_FULL): its count with that candidate.
   */
  full?: LineOverflow;
  /** The lines each included transaction added to the block (parallel to `included`). */
  lineAdded: LineCounts[];
  /** The block's EIP-7685 requests (Prague on). */
  requests?: CLRequest<CLRequestType>[];
  /** Per bundle given: undefined if it is in the block, else why not. */
  bundles: (string | undefined)[];
  /** The first forced transaction not selected, if one was not: its place in the queue and its status. */
  forcedRejection?: { index: number; status: ForcedStatus };
}

/** Linea's forced-transaction inclusion results (ForcedTransactionInclusionResult). */
export type ForcedStatus =
  | 'Included'
  | 'BadNonce'
  | 'BadBalance'
  | 'BadPrecompile'
  | 'TooManyLogs'
  | 'FilteredAddressFrom'
  | 'FilteredAddressTo'
  | 'ChainSecurityRuleViolation'
  | 'Other';

/** The fields a block's header was built from: all but what sealing it computes. */
export function buildFields(h: BlockHeader): HeaderData {
  return {
    parentHash: h.parentHash,
    coinbase: h.coinbase,
    number: h.number,
    gasLimit: h.gasLimit,
    timestamp: h.timestamp,
    extraData: h.extraData,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    excessBlobGas: h.excessBlobGas,
    blobGasUsed: h.blobGasUsed,
  };
}

/** A mined block's transactions as candidates to run again, with their senders. */
export function asCandidates(txs: readonly TypedTransaction[], senders: Uint8Array[]): PoolTx[] {
  return txs.map((tx, i) => ({ tx, hash: tx.hash(), sender: senders[i], nonce: tx.nonce, addedAt: 0 }));
}

export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const tip =
      tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee;
    return baseFee + tip;
  }
  return (tx as unknown as { gasPrice: bigint }).gasPrice;
}

export function toReceipt(tx: TypedTransaction, sender: Uint8Array, result: RunTxResult, baseFee: bigint): Receipt {
  const r = result.receipt as {
    status?: 0 | 1;
    stateRoot?: Uint8Array;
    blobGasUsed?: bigint;
    blobGasPrice?: bigint;
    cumulativeBlockGasUsed: bigint;
    bitvector: Uint8Array;
    logs: [Uint8Array, Uint8Array[], Uint8Array][];
  };
  return {
    txHash: tx.hash(),
    type: tx.type,
    status: r.status ?? 1,
    cumulativeGasUsed: r.cumulativeBlockGasUsed,
    gasUsed: result.totalGasSpent,
    effectiveGasPrice: effectiveGasPrice(tx, baseFee),
    from: sender,
    to: tx.to?.bytes,
    contractAddress: result.createdAddress?.bytes,
    logs: r.logs.map(([address, topics, data]) => ({ address, topics, data })),
    logsBloom: r.bitvector,
    ...(r.stateRoot === undefined ? {} : { root: r.stateRoot }),
    ...(r.blobGasUsed === undefined ? {} : { blobGasUsed: r.blobGasUsed, blobGasPrice: r.blobGasPrice }),
  };
}

export async function buildBlock(input: BuildInput): Promise<BuildResult> {
  const { vm, candidates, lineCounter, limits } = input;
  const common = vm.common;
  const header: HeaderData = { ...input.header };
  const gasLimit = header.gasLimit as bigint;
  const baseFee = (header.baseFeePerGas as bigint | undefined) ?? 0n;
  // The block context the transactions see while running (roots are filled in at the end).
  const context = createBlock({ header }, { common });

  const txs: TypedTransaction[] = [];
  const out: BuildResult = {
    block: context,
    receipts: [],
    included: [],
    excluded: [],
    dropped: [],
    deferred: [],
    lineTotals: {},
    lineAdded: [],
    bundles: [],
  };
  const blockedSenders = new Set<string>();
  let gasUsed = 0n;
  const blobs = common.isActivatedEIP(4844);
  const maxBlobGas = blobs ? common.getBlobGasSchedule().maxBlobGasPerBlock : 0n;
  const blobGasPrice = blobs ? context.header.getBlobGasPrice() : 0n;
  let blobGasUsed = 0n;
  await lineCounter.startBlock();

  const body = input.body ?? EMPTY_BODY;
  const results: RunTxResult[] = [];

  /** What trying a transaction gave: in the block, or why not. */
  type Outcome =
    | { kind: 'included'; reverted: boolean }
    | { kind: 'deferred' }
    | { kind: 'dropped'; error: Error }
    | { kind: 'excluded'; overflow: LineOverflow; forced?: boolean }
    | { kind: 'full'; overflow: LineOverflow };

  /** Runs `ptx` on the block so far; keeps it (and its receipt, lines and gas) only if it is selected. */
  const attempt = async (ptx: PoolTx, priority = false): Promise<Outcome> => {
    // Too big for what is left of the block (gas or blob gas), or priced under this block's base
    // fee or blob gas price: a later block.
    const blobGas = blobGasOf(ptx.tx, common);
    const blobFeeCap = (ptx.tx as { maxFeePerBlobGas?: bigint }).maxFeePerBlobGas ?? 0n;
    if (
      ptx.tx.gasLimit > gasLimit - gasUsed ||
      maxFeeOf(ptx.tx) < baseFee ||
      blobGas > maxBlobGas - blobGasUsed ||
      (blobGas > 0n && blobFeeCap < blobGasPrice)
    )
      return { kind: 'deferred' };
    // BLOCK_CALLDATA_OVERFLOW, TX_UNPROFITABLE_UPFRONT: a later block, and selection goes on.
    if (input.blockRules?.before(ptx.tx, ptx.sender, priority) !== undefined) return { kind: 'deferred' };
    const verdict = input.screen?.(ptx);
    if (verdict !== undefined)
      return 'error' in verdict
        ? { kind: 'dropped', error: verdict.error }
        : { kind: 'excluded', overflow: verdict.overflow, forced: true };
    await vm.evm.journal.checkpoint();
    lineCounter.beginTx();
    let result: RunTxResult;
    try {
      result = await runTransaction(
        vm,
        { tx: ptx.tx, block: context, blockGasUsed: gasUsed, skipHardForkValidation: true },
        ptx.sender,
      );
    } catch (error) {
      await vm.evm.journal.revert();
      lineCounter.popTx();
      return { kind: 'dropped', error: error as Error };
    }
    // As Linea's selector: the lines this transaction added to the block decide its own overflow,
    // the block's cumulative count whether the block is full.
    const counts = lineCounter.endTx(ptx.tx, result);
    const added: LineCounts = {};
    for (const module in counts) added[module] = counts[module] - (out.lineTotals[module] ?? 0);
    const own = limits?.txOverflow(added);
    const full = own === undefined ? limits?.blockOverflow(counts) : undefined;
    const userGas =
      own === undefined && !full
        ? input.blockRules?.after(
            ptx.tx,
            ptx.sender,
            result.totalGasSpent,
            (result.execResult.logs ?? []).map(([address, topics]) => ({ address, topics })),
            priority,
          )
        : undefined;
    if (own !== undefined || full !== undefined || userGas !== undefined) {
      await vm.evm.journal.revert();
      lineCounter.popTx();
      if (own !== undefined) return { kind: 'excluded', overflow: own };
      // BLOCK_MODULE_LINE_COUNT_FULL stops the selection, as Linea's selector does.
      if (full !== undefined) return { kind: 'full', overflow: full };
      // TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS and DENIED_LOG_TOPIC leave the pool; TX_TOO_LARGE_FOR_REMAINING_USER_GAS and
      // TX_UNPROFITABLE wait.
      return userGas === 'TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS' || userGas === 'DENIED_LOG_TOPIC'
        ? { kind: 'dropped', error: new Error(userGas) }
        : { kind: 'deferred' };
    }
    input.blockRules?.selected(ptx.tx, result.totalGasSpent);
    lineCounter.commitTx();
    out.lineTotals = counts;
    out.lineAdded.push(added);
    await vm.evm.journal.commit();
    gasUsed += result.totalGasSpent;
    blobGasUsed += blobGas;
    txs.push(ptx.tx);
    results.push(result);
    out.included.push(ptx);
    out.receipts.push(toReceipt(ptx.tx, ptx.sender, result, baseFee));
    return { kind: 'included', reverted: result.execResult.exceptionError !== undefined };
  };

  /**
   * A bundle (linea_sendBundle), before the pool's transactions: all of its transactions in order, or
   * none (SEQ/sequencer/txselection/selectors/BundleConstraintTransactionSelector.java: one that is
   * not selected, or that reverts without being listed as allowed to, drops the bundle; and
   * MaxBundleGasPerBlockTransactionSelector.java: the bundles' gas in a block).
   */
  let bundleGas = 0n;
  const attemptBundle = async (bundle: BundleInput): Promise<string | undefined> => {
    const mark = {
      lines: lineCounter.mark(),
      rules: input.blockRules?.mark(),
      lineTotals: out.lineTotals,
      included: out.included.length,
      gasUsed,
      blobGasUsed,
    };
    await vm.evm.journal.checkpoint();
    let failure: string | undefined;
    for (const ptx of bundle.txs) {
      const outcome = await attempt(ptx);
      if (outcome.kind !== 'included') failure = `transaction ${bytesToHex(ptx.hash)} not selected (${outcome.kind})`;
      else if (outcome.reverted && !bundle.revertible.has(bytesToHex(ptx.hash)))
        failure = 'Failed non revertable transaction in bundle';
      if (failure !== undefined) break;
    }
    const gas = gasUsed - mark.gasUsed;
    const maxGas = input.maxBundleBlockGas ?? DEFAULT_MAX_BUNDLE_BLOCK_GAS;
    if (failure === undefined && gas > maxGas) failure = 'BUNDLE_GAS_EXCEEDS_MAX_BUNDLE_BLOCK_GAS';
    else if (failure === undefined && bundleGas + gas > maxGas)
      failure = 'BUNDLE_TOO_LARGE_FOR_REMAINING_BUNDLE_BLOCK_GAS';
    if (failure === undefined) {
      await vm.evm.journal.commit();
      bundleGas += gas;
      return undefined;
    }
    await vm.evm.journal.revert();
    lineCounter.rollback(mark.lines);
    if (mark.rules !== undefined) input.blockRules?.rollback(mark.rules);
    out.lineTotals = mark.lineTotals;
    for (const list of [out.included, out.receipts, out.lineAdded, txs, results]) list.length = mark.included;
    gasUsed = mark.gasUsed;
    blobGasUsed = mark.blobGasUsed;
    return failure;
  };

  /**
   * A forced transaction's status when it was not selected (ForcedTransactionInclusionResult, as
   * LineaForcedTransactionPool.mapToInclusionResult maps it); 'Other' is retried.
   */
  const forcedStatus = async (ptx: PoolTx, outcome: Exclude<Outcome, { kind: 'included' }>): Promise<ForcedStatus> => {
    if (outcome.kind === 'dropped') {
      const message = outcome.error.message;
      if (message.startsWith('sender ')) return 'FilteredAddressFrom';
      if (message.startsWith('recipient ')) return 'FilteredAddressTo';
      const account = await vm.stateManager.getAccount(new Address(ptx.sender));
      if ((account?.nonce ?? 0n) !== ptx.nonce) return 'BadNonce';
      const cost = ptx.tx.gasLimit * maxFeeOf(ptx.tx) + ptx.tx.value;
      if ((account?.balance ?? 0n) < cost) return 'BadBalance';
    }
    if (outcome.kind === 'excluded') {
      const module = outcome.overflow.module;
      if (module === 'PRECOMPILE_RIPEMD_BLOCKS' || module === 'PRECOMPILE_BLAKE_EFFECTIVE_CALLS')
        return 'BadPrecompile';
      if (module === 'BLOCK_L2_L1_LOGS') return 'TooManyLogs';
    }
    return 'Other';
  };

  await vm.evm.journal.checkpoint();
  try {
    await beginBlock(vm, context, input.daoForkBlock);
    // Forced transactions first, in order, as priority transactions (not priced); the first not
    // selected stops them (LineaForcedTransactionPool.processForBlock: one invalidity a block).
    for (const [index, ptx] of (input.forced ?? []).entries()) {
      const outcome = await attempt(ptx, true);
      if (outcome.kind === 'included') continue;
      out.forcedRejection = { index, status: await forcedStatus(ptx, outcome) };
      break;
    }
    for (const bundle of input.bundles ?? []) out.bundles.push(await attemptBundle(bundle));
    for (const [position, ptx] of candidates.entries()) {
      if (input.maxTransactions !== undefined && txs.length >= input.maxTransactions) {
        out.deferred.push(...candidates.slice(position));
        break;
      }
      const senderHex = bytesToHex(ptx.sender);
      if (blockedSenders.has(senderHex)) {
        out.deferred.push(ptx);
        continue;
      }
      const outcome = await attempt(ptx);
      if (outcome.kind === 'included') continue;
      if (outcome.kind === 'full') {
        out.full = outcome.overflow;
        // This and every later candidate wait for the next block, even one small enough to fit.
        out.deferred.push(...candidates.slice(position));
        break;
      }
      if (outcome.kind === 'deferred') out.deferred.push(ptx);
      else if (outcome.kind === 'dropped') out.dropped.push({ ptx, error: outcome.error });
      else out.excluded.push({ ptx, overflow: outcome.overflow, ...(outcome.forced && { forced: true }) });
      blockedSenders.add(senderHex);
    }
    // System calls are not the transactions' lines.
    const counting = lineCounter.isActive;
    lineCounter.setActive(false);
    try {
      out.requests = await endBlock(vm, context, body, results);
    } finally {
      lineCounter.setActive(counting);
    }
    // The whole block as Linea's tracer reports it: its constant and system rows even when empty.
    out.lineTotals = lineCounter.blockTotals();
  } catch (e) {
    await vm.evm.journal.revert();
    throw e;
  }
  await vm.evm.journal.commit();
  // Every checkpoint and commit leaves an entry in the journal's diff list; transactions clear it
  // as they end, an empty block would leave its two there for good.
  vm.evm.journal.cleanJournal();

  if (blobs) header.blobGasUsed = blobGasUsed;
  out.block = await sealBlock(vm, header, txs, out.receipts, body, requestsHash(vm, out.requests));
  return out;
}

/** The blob gas a transaction uses (EIP-4844): its blobs times the gas of one. */
export function blobGasOf(tx: TypedTransaction, common: VM['common']): bigint {
  const hashes = (tx as { blobVersionedHashes?: unknown[] }).blobVersionedHashes;
  return hashes === undefined ? 0n : BigInt(hashes.length) * common.param('blobGasPerBlob');
}

/**
 * Before the transactions, as ethereumjs's runBlock: the DAO fork's drain of the DAO accounts into the
 * refund contract (at `daoForkBlock`), the EIP-4788 beacon root and EIP-2935 parent hash writes.
 */
export async function beginBlock(vm: VM, block: Block, daoForkBlock?: bigint): Promise<void> {
  const h = block.header;
  if (daoForkBlock !== undefined && h.number === daoForkBlock) await applyDAOHardfork(vm.evm);
  if (vm.common.isActivatedEIP(4788))
    await accumulateParentBeaconBlockRoot(vm, h.parentBeaconBlockRoot ?? new Uint8Array(32), h.timestamp);
  if (vm.common.isActivatedEIP(2935)) await accumulateParentBlockHash(vm, h.number, h.parentHash);
}

/**
 * After the transactions, in ethereumjs runBlock's order: withdrawals (EIP-4895), the miner's and
 * ommers' rewards (proof of work), then the EIP-7685 requests, which it returns.
 */
async function endBlock(
  vm: VM,
  block: Block,
  body: BlockBody,
  results: RunTxResult[],
): Promise<CLRequest<CLRequestType>[] | undefined> {
  const common = vm.common;
  if (common.isActivatedEIP(4895)) {
    for (const w of body.withdrawals) await rewardAccount(vm.evm, w.address, w.amount * GWEI_TO_WEI, common);
    await vm.evm.journal.cleanup();
  }
  if (common.consensusType() === ConsensusType.ProofOfWork) {
    const minerReward = common.param('minerReward');
    const number = block.header.number;
    for (const ommer of body.uncles) {
      const reward = ((8n - (number - ommer.number)) * minerReward) / 8n;
      await rewardAccount(vm.evm, ommer.coinbase, reward > 0n ? reward : 0n, common);
    }
    await rewardAccount(vm.evm, block.header.coinbase, calculateMinerReward(minerReward, body.uncles.length), common);
  }
  return requestsOf(vm, block.header.gasLimit, results);
}

/**
 * The EIP-7685 requests after a block's transactions (deposit logs, and the withdrawal and
 * consolidation queues' system calls), as type byte + data; undefined before Prague. Only the logs
 * of `results` are read.
 */
export async function requestsOf(
  vm: VM,
  gasLimit: bigint,
  results: Pick<RunTxResult, 'receipt'>[],
): Promise<CLRequest<CLRequestType>[] | undefined> {
  if (!vm.common.isActivatedEIP(7685)) return undefined;
  if (!STOCK_EVM && (await requestQueuesIdle(vm, results))) return [];
  return accumulateRequests(vm, results as RunTxResult[], gasLimit, true);
}

/** The EIP-7685 requests hash of `requests` (undefined before Prague). */
export function requestsHash(vm: VM, requests: CLRequest<CLRequestType>[] | undefined): Uint8Array | undefined {
  return requests === undefined ? undefined : genRequestsRoot(requests, vm.common.customCrypto.sha256 ?? sha256);
}

const QUEUES = SYSTEM_CONTRACTS.filter((c) => c.eip === 7002 || c.eip === 7251).map((c) => ({
  eip: c.eip,
  address: createAddressFromString(c.address),
  code: hexToBytes(c.code),
}));
const DEPOSIT_TOPIC = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');
const QUEUE_SLOTS = [0, 1, 2, 3].map((i) => setLengthLeft(intToBytes(i), 32));

/**
 * Whether the block's requests are all empty without running the request system calls: no deposit
 * log (EIP-6110), and the withdrawal and consolidation queues (EIP-7002, EIP-7251) the standard
 * contracts and idle, their excess, count, head and tail slots all zero. Their system call then
 * returns nothing and writes only zeros over zeros: no state change. A devnet's usual block; the
 * calls cost ~0.5 ms a block.
 */
async function requestQueuesIdle(vm: VM, results: Pick<RunTxResult, 'receipt'>[]): Promise<boolean> {
  // EIP-8282 (Amsterdam) adds a request type this check does not know: the system calls run.
  if (vm.common.isActivatedEIP(8282)) return false;
  for (const r of results)
    for (const [, topics] of r.receipt.logs)
      if (topics.length > 0 && equalsBytes(topics[0], DEPOSIT_TOPIC)) return false;
  for (const q of QUEUES) {
    if (!vm.common.isActivatedEIP(q.eip)) continue;
    if (!equalsBytes(await vm.stateManager.getCode(q.address), q.code)) return false;
    for (const slot of QUEUE_SLOTS) if ((await vm.stateManager.getStorage(q.address, slot)).length > 0) return false;
  }
  return true;
}

/**
 * A block sealed from its header fields, transactions and receipts, on the state the VM holds: its
 * state root, transactions and receipts roots, logs bloom and gas used.
 */
export async function sealBlock(
  vm: VM,
  header: HeaderData,
  txs: TypedTransaction[],
  receipts: Receipt[],
  body: BlockBody = EMPTY_BODY,
  requestsHash?: Uint8Array,
): Promise<Block> {
  const common = vm.common;
  const stateRoot = await vm.stateManager.getStateRoot();
  const bloom = new Bloom(undefined, common);
  for (const r of receipts) bloom.or(new Bloom(r.logsBloom, common));
  const receiptTrie = await orderedTrieRoot(receipts.map(encodeReceipt));
  const transactionsTrie = await orderedTrieRoot(txs.map((tx) => tx.serialize()));
  const gasUsed = receipts.at(-1)?.cumulativeGasUsed ?? 0n;
  // Built from the transaction objects already in hand (createBlock would decode each one again).
  const withdrawals = common.isActivatedEIP(4895) ? body.withdrawals : undefined;
  const sealed = createBlockHeader(
    {
      ...header,
      stateRoot,
      transactionsTrie,
      receiptTrie,
      logsBloom: bloom.bitvector,
      gasUsed,
      uncleHash:
        body.uncles.length === 0 ? KECCAK256_RLP_ARRAY : keccak256(RLP.encode(body.uncles.map((u) => u.raw()))),
      withdrawalsRoot:
        withdrawals === undefined ? undefined : await orderedTrieRoot(withdrawals.map((w) => RLP.encode(w.raw()))),
      requestsHash,
    },
    { common },
  );
  return new BlockClass(sealed, txs, body.uncles, withdrawals, { common });
}
