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
