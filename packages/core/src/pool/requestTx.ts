/**
 * The transaction a request becomes: what eth_sendTransaction fills in (type, fees) when a wallet
 * leaves it out, and the unsigned twin a call is counted as, so that an estimate's line counts are
 * the counts of the transaction sent after it.
 */
import type { Common } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';

/** Tip suggested to wallets (eth_maxPriorityFeePerGas), as Anvil: 1 gwei. */
export const SUGGESTED_TIP = 1_000_000_000n;

/**
 * Linea's stand-in signature for sizing a transaction that is not signed yet
 * (LineaEstimateGas.FAKE_SIGNATURE_FOR_SIZE_CALCULATION, linea-besu/plugins/linea-sequencer/
 * sequencer/src/main/java/net/consensys/linea/rpc/methods/LineaEstimateGas.java): r and s of 32
 * bytes each, as all but 1 in 128 real signatures, and recovery id 0.
 */
const SIZING_R = 66397251408932042429874251838229702988618145381408295790259650671563847073199n;
const SIZING_S = 24729624138373455972486746091821238755870276413282629437244319694880507882088n;

/** A transaction request's fields (eth_sendTransaction's, eth_call's). */
export interface TxRequest {
  to?: Uint8Array;
  nonce?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  /** EIP-2930: addresses and slots warm from the start, paid for in the intrinsic gas. */
  accessList?: [address: Uint8Array, slots: Uint8Array[]][];
  /** 0 or 1 ask for a gas-price transaction where fees would otherwise be EIP-1559's. */
  type?: number;
}

/** What the node knows and the request does not say. */
export interface TxFill {
  nonce: bigint;
  gasLimit: bigint;
  /** The next block's base fee. */
  baseFee: bigint;
  /** The tip to give where the request names none (default SUGGESTED_TIP). */
  tip?: bigint;
}

/** The fees eth_sendTransaction gives a request: its own, else the base fee doubled plus the tip. */
export function requestFees(
  common: Common,
  req: TxRequest,
  baseFee: bigint,
  tip = SUGGESTED_TIP,
): { gasPrice: bigint } | { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  const legacy = req.gasPrice !== undefined || req.type === 0 || req.type === 1 || !common.isActivatedEIP(1559);
  if (legacy) return { gasPrice: req.gasPrice ?? baseFee + tip };
  let maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? tip;
  const maxFeePerGas = req.maxFeePerGas ?? 2n * baseFee + maxPriorityFeePerGas;
  if (req.maxPriorityFeePerGas === undefined && maxPriorityFeePerGas > maxFeePerGas)
    maxPriorityFeePerGas = maxFeePerGas;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * The unsigned transaction `req` becomes, as eth_sendTransaction builds it; with `sizing`, carrying
 * Linea's stand-in signature, so it serialises to a signed one's size (what a call's line counts
 * fold in: RLP_TXN, BLOCK_L1_SIZE, BLOCK_KECCAK), and keeping a gas limit past the EIP-7825 cap (a
 * call counted at the call gas cap).
 */
export function requestTransaction(common: Common, req: TxRequest, fill: TxFill, sizing = false): TypedTransaction {
  const fees = requestFees(common, req, fill.baseFee, fill.tip);
  const base = {
    nonce: req.nonce ?? fill.nonce,
    // Sized for counting, it may carry the call gas cap, past EIP-7825's cap: set after construction.
    gasLimit: sizing ? 0n : fill.gasLimit,
    to: req.to,
    value: req.value ?? 0n,
    data: req.data ?? new Uint8Array(),
  };
  const opts = { common, freeze: !sizing };
  const chainId = common.chainId();
  const signature = (v: bigint) => (sizing ? { v, r: SIZING_R, s: SIZING_S } : {});
  const tx =
    'maxFeePerGas' in fees
      ? createFeeMarket1559Tx({ ...base, ...fees, accessList: req.accessList ?? [], ...signature(0n) }, opts)
      : req.type === 1 || (req.accessList !== undefined && common.isActivatedEIP(2930))
        ? createAccessList2930Tx({ ...base, ...fees, accessList: req.accessList ?? [], ...signature(0n) }, opts)
        : createLegacyTx(
            { ...base, ...fees, ...signature(common.gteHardfork('spuriousDragon') ? chainId * 2n + 35n : 27n) },
            opts,
          );
  if (sizing) (tx as { gasLimit: bigint }).gasLimit = fill.gasLimit;
  return tx;
}
