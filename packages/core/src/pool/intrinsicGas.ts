import type { Common } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';

/** Intrinsic gas of a transaction, with the EIP-7623 calldata floor where that EIP is active. */
export function intrinsicGas(tx: TypedTransaction): bigint {
  const intrinsic = tx.getIntrinsicGas();
  if (!tx.common.isActivatedEIP(7623)) return intrinsic;
  let tokens = 0n;
  for (const b of tx.data) tokens += b === 0 ? 1n : 4n;
  const floor = tx.common.param('txGas') + tx.common.param('totalCostFloorPerToken') * tokens;
  return intrinsic > floor ? intrinsic : floor;
}

/** What a transaction pays before it runs (`upfront`), and the least it pays in all (`floor`, EIP-7623). */
export interface IntrinsicGas {
  upfront: bigint;
  floor: bigint;
}

export function intrinsicGasParts(tx: TypedTransaction): IntrinsicGas {
  return { upfront: tx.getIntrinsicGas(), floor: intrinsicGas(tx) };
}

/**
 * Gas a run used in all: its intrinsic gas and execution, at least the EIP-7623 floor (charged at
 * the end, as geth does); with `refunded`, less its refund (EIP-3529: at most a fifth), as a
 * receipt reports it.
 */
export function gasSpent(
  intrinsic: IntrinsicGas,
  execResult: { executionGasUsed: bigint; gasRefund?: bigint },
  refunded: boolean,
): bigint {
  let used = intrinsic.upfront + execResult.executionGasUsed;
  if (refunded) {
    const refund = execResult.gasRefund ?? 0n;
    used -= refund < used / 5n ? refund : used / 5n;
  }
  return used > intrinsic.floor ? used : intrinsic.floor;
}

/**
 * The intrinsic gas of a call `to` an address with `data` and no access list, as a transaction of
 * it would have (ethereumjs's getIntrinsicGas: 21,000 and the data's bytes; intrinsicGas's EIP-7623
 * floor), without building the transaction; undefined for what that leaves out: a creation (its
 * init code is checked and priced on its own), an access list, and the later forks whose EIPs price
 * more (EIP-2780's recipient, EIP-7981's access list bytes).
 */
export function callIntrinsicGas(
  common: Common,
  req: { to?: Uint8Array; data?: Uint8Array; value?: bigint; accessList?: unknown[] },
): IntrinsicGas | undefined {
  if (req.to === undefined || (req.accessList?.length ?? 0) > 0) return undefined;
  // A value past 256 bits is the transaction's error to give.
  if ((req.value ?? 0n) > MAX_UINT256) return undefined;
  if (common.isActivatedEIP(2780) || common.isActivatedEIP(7981)) return undefined;
  const txGas = common.param('txGas');
  let zeros = 0;
  const data = req.data ?? EMPTY;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  const nonZeros = data.length - zeros;
  const upfront =
    txGas + common.param('txDataZeroGas') * BigInt(zeros) + common.param('txDataNonZeroGas') * BigInt(nonZeros);
  if (!common.isActivatedEIP(7623)) return { upfront, floor: upfront };
  const floor = txGas + common.param('totalCostFloorPerToken') * BigInt(zeros + 4 * nonZeros);
  return { upfront, floor: upfront > floor ? upfront : floor };
}

/**
 * The transaction a call would be, for its intrinsic gas where callIntrinsicGas leaves it out: the
 * newest type the fork has, without a signature or gas; ethereumjs's checks refuse what it would.
 */
export function callTransaction(
  common: Common,
  req: { to?: Uint8Array; data?: Uint8Array; value?: bigint; accessList?: [Uint8Array, Uint8Array[]][] },
): TypedTransaction {
  const fields = { to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array(), gasLimit: 0n };
  const accessList = req.accessList ?? [];
  if (common.isActivatedEIP(1559)) return createFeeMarket1559Tx({ ...fields, accessList }, { common });
  if (common.isActivatedEIP(2930)) return createAccessList2930Tx({ ...fields, accessList }, { common });
  return createLegacyTx(fields, { common });
}

const EMPTY = new Uint8Array(0);
const MAX_UINT256 = (1n << 256n) - 1n;
