/**
 * Makes a Common cheap to copy. Every block header and every transaction ethereumjs builds copies
 * its Common and merges its package's parameter table into it (`updateParams`: JSON deep copies
 * and a rebuild of the parameter cache, ~0.15 ms each, several times per mined block). A copy
 * shares the original's `_params` table, so once a table has been merged into the original the
 * merge is a no-op for every copy; this skips it. Copies that change hardfork still rebuild their
 * own cache as usual.
 */
import { paramsBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';

type ParamsDict = Parameters<Common['updateParams']>[0];

export function prepareCommon(common: Common): Common {
  const merged = new WeakSet<object>();
  const update = Object.getPrototypeOf(common).updateParams as (this: Common, p: ParamsDict) => Common;
  for (const params of [paramsBlock, paramsTx, paramsVM, paramsEVM] as ParamsDict[]) {
    update.call(common, params);
    merged.add(params);
  }
  // An own property, so `copy()` (Object.assign of own properties) hands it to every copy.
  common.updateParams = function (this: Common, params: ParamsDict) {
    return merged.has(params) ? this : update.call(this, params);
  };
  return common;
}

/**
 * Gives `common` another chain id (anvil_setChainId). ethereumjs has no setter; every copy of a
 * Common shares its chain parameters (copy() is a shallow Object.assign), so the Commons of the
 * chain's VMs, headers and transactions all take it.
 */
export function setChainId(common: Common, chainId: bigint): void {
  (common as unknown as { _chainParams: { chainId: number | bigint } })._chainParams.chainId = chainId;
}
