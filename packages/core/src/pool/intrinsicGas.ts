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
