/**
 * The rows a transaction adds as a whole, once its execution has been counted: its HUB sections
 * (hub/section/TxSkipSection.java, TxWarmupSection.java, TxInitializationSection.java,
 * TxFinalizationSection.java; ZkCounter's NB_ROWS_HUB_*), its EIP-7702 delegations
 * (ZkCounter.traceStartTransaction), its receipt and logs (RLP_TXN_RCPT, LOG_DATA, LOG_INFO,
 * BLOCK_L2_L1_LOGS), its own data and RLP (TXN_DATA, RLP_TXN, RLP_ADDR), the block's shares of it
 * (BLOCK_TRANSACTIONS, BLOCK_L1_SIZE, BLOCK_KECCAK), and London's TXN_DATA comparisons in WCP and EUC
 * (TxndataOperation.setCallsToEucAndWcp, linea-monorepo 658ab6d1). Row formulas in lineProfiles.ts.
 */
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, equalsBytes } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';

import type { Conflation } from './conflation';
import type { L1L2Bridge } from './lineCounter';
import { ISZERO, keccakBlocks, LEQ, LT, logDataRows, logInfoRows, rlpReceiptRows, rlpTxnRows } from './lineProfiles';
import type { LogShape } from './lineProfiles';

/** EIP-2681's largest nonce, and EIP-3529's refund quotient. */
const MAX_NONCE = (1n << 64n) - 1n;
const MAX_REFUND_QUOTIENT = 5n;

/** What the transaction's rows need of the counter: where they go, whose rules, London's shared operations. */
export interface TransactionCounting {
  /** The conflation counted into now. */
  readonly c: Conflation;
  mode: 'london' | 'osaka' | 'limitless';
  bridge: L1L2Bridge;
  /** TRM's operation on an address word (London: with its WCP calls). */
  trm(word: bigint): void;
  /** A comparison asked of WCP. */
  wcp(op: number, a: bigint, b?: bigint): void;
  /** A division asked of EUC (the dividend as `width` bytes, or its minimal bytes when undefined). */
  euc(dividend: bigint, divisor: bigint, width?: number): void;
}

/** London: the sender's balance, the gas price and the base fee as the transaction's message started. */
export interface TransactionStart {
  balance: bigint;
  /** The gas was bought before the message started (a transaction's run; a call's was not). */
  gasBought: boolean;
  gasPrice: bigint;
  baseFee: bigint;
}

/** What the counter saw of the transaction's execution. */
export interface TransactionExecution {
  /** HUB rows of the instructions run (exceptional context exits included). */
  instructionHub: number;
  /** Frames with code run: none is TX_SKIP. */
  codeFrames: number;
  start: TransactionStart | undefined;
}

/** Adds the rows of `tx` as a whole (undefined: a call, which has no transaction of its own). */
export function foldTransaction(
  k: TransactionCounting,
  tx: TypedTransaction | undefined,
  result: Pick<RunTxResult, 'execResult'> | undefined,
  execution: TransactionExecution,
): void {
  const { c } = k;
  const london = k.mode === 'london';
  let hub = execution.instructionHub;
  const failed = result !== undefined && result.execResult.exceptionError !== undefined;
  // TX_SKIP, or TX_WARM + TX_INIT (its 2 undo rows when the transaction fails) + TX_FINL
  // (hub/section/Tx*Section.java); ZkCounter: NB_ROWS_HUB_SKIP, NB_ROWS_HUB_INIT + NB_ROWS_HUB_FINL.
  if (execution.codeFrames === 0) hub += london ? 4 : 6;
  else {
    const warm = tx !== undefined && 'accessList' in tx ? accessListRows(tx) : 0;
    const failing = failed ? 2 : 0;
    hub += warm + { london: 6 + failing + 3, osaka: 8 + failing + 4, limitless: 10 + 4 }[k.mode];
  }
  // EIP-7702 (ZkCounter.traceStartTransaction): each delegation 2 HUB rows, an ECRECOVER on its
  // signature (EC_DATA 10, an effective call), 7 SHAKIRA rows and a keccak; then 1 HUB row.
  const delegations = tx !== undefined && 'authorizationList' in tx ? (tx.authorizationList as unknown[]).length : 0;
  if (delegations > 0) {
    hub += 2 * delegations + 1;
    c.add('EC_DATA', 10 * delegations);
    c.add('PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS', delegations);
    c.add('SHAKIRA_DATA', 7 * delegations);
    c.add('BLOCK_KECCAK', 2 * delegations);
  }
  c.add('HUB', hub);

  const logs: LogShape[] = [];
  const { contract, topic } = k.bridge;
  for (const [address, topics, data] of (result?.execResult.logs ?? []) as [Uint8Array, Uint8Array[], Uint8Array][]) {
    logs.push({ topics: topics.length, dataSize: data.length });
    if (topics.length > 0 && equalsBytes(address, contract) && equalsBytes(topics[0], topic))
      c.add('BLOCK_L2_L1_LOGS', 1);
  }
  c.add('RLP_TXN_RCPT', rlpReceiptRows(logs));
  c.add('LOG_DATA', logDataRows(logs));
  c.add('LOG_INFO', logInfoRows(logs));
  c.add('BLOCK_TRANSACTIONS', 1);
  if (tx === undefined) return;
  c.add('TXN_DATA', london ? (tx.type === 0 ? 8 : 9) : tx.type >= 2 ? 17 : 15);
  if (london) {
    // London trims each address its access list warms (TxPreWarmingMacroSection).
    if ('accessList' in tx)
      for (const [address] of tx.accessList as [Uint8Array, Uint8Array[]][]) k.trm(bytesToBigInt(address));
    txnDataComparisons(k, tx, result, execution.start);
  }
  c.add('RLP_TXN', rlpTxnRows(txShape(tx)));
  const encoded = tx.serialize();
  c.add('BLOCK_L1_SIZE', encoded.length + 20);
  const preimage = tx.getMessageToSign();
  const preimageLength = (Array.isArray(preimage) ? RLP.encode(preimage) : preimage).length;
  c.add('BLOCK_KECCAK', keccakBlocks(encoded.length) + keccakBlocks(preimageLength) + 1);
  if (tx.to === undefined) {
    c.add('RLP_ADDR', 8);
    c.add('BLOCK_KECCAK', 1);
  }
}

/**
 * London's TXN_DATA comparisons in WCP (TxndataOperation.setCallsToEucAndWcp, 658ab6d1): the nonce
 * below EIP-2681's maximum, the upfront wei cost (value + gas limit × gas price or max fee) at most
 * the initial balance, the intrinsic gas at most the gas limit, the refunds below their limit (the
 * gas consumed / 5, EUC's), the payload's size zero or not, and the fees against the base fee.
 */
function txnDataComparisons(
  k: TransactionCounting,
  tx: TypedTransaction,
  result: Pick<RunTxResult, 'execResult'> | undefined,
  start: TransactionStart | undefined,
): void {
  if (start === undefined) return;
  k.wcp(LT, tx.nonce, MAX_NONCE);
  const maxFee = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice;
  const initial = start.balance + (start.gasBought ? tx.gasLimit * start.gasPrice : 0n);
  k.wcp(LEQ, tx.value + maxFee * tx.gasLimit, initial);
  const intrinsic = tx.getIntrinsicGas();
  k.wcp(LEQ, intrinsic, tx.gasLimit);
  const consumed = intrinsic + (result?.execResult.executionGasUsed ?? 0n);
  k.euc(consumed, MAX_REFUND_QUOTIENT);
  k.wcp(LT, result?.execResult.gasRefund ?? 0n, consumed / MAX_REFUND_QUOTIENT);
  const size = BigInt(tx.data.length);
  k.wcp(ISZERO, size);
  if ('maxPriorityFeePerGas' in tx) {
    const tip = tx.maxPriorityFeePerGas as bigint;
    k.wcp(LEQ, start.baseFee, maxFee);
    k.wcp(LEQ, tip, maxFee);
    k.wcp(LEQ, tip + start.baseFee, maxFee);
  } else k.wcp(LEQ, start.baseFee, maxFee);
}

function accessListRows(tx: TypedTransaction): number {
  const list = (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList;
  return list.reduce((s, [, keys]) => s + 1 + keys.length, 0);
}

function txShape(tx: TypedTransaction) {
  const t = tx as unknown as {
    gasPrice?: bigint;
    maxPriorityFeePerGas?: bigint;
    maxFeePerGas?: bigint;
    accessList?: [Uint8Array, Uint8Array[]][];
    chainId?: bigint;
  };
  return {
    type: tx.type,
    chainId: t.chainId ?? tx.common.chainId(),
    nonce: tx.nonce,
    gasPrice: t.gasPrice ?? 0n,
    maxPriorityFee: t.maxPriorityFeePerGas ?? 0n,
    maxFee: t.maxFeePerGas ?? 0n,
    isCreate: tx.to === undefined,
    value: tx.value,
    dataSize: tx.data.length,
    accessList: (t.accessList ?? []).map(([, keys]) => keys.length),
    v: tx.v ?? 0n,
    r: tx.r ?? 0n,
    s: tx.s ?? 0n,
  };
}
