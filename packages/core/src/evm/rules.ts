/**
 * A fork's rules for the engine, resolved once per Common and hardfork: which opcodes exist and
 * their static gas (ethereumjs's own table for the fork, so the two engines agree by construction),
 * the dynamic gas parameters as numbers, and the EIPs that change behaviour. The interpreter reads
 * these plain fields in its loop instead of asking the Common.
 */
import type { Common } from '@ethereumjs/common';
import { Hardfork } from '@ethereumjs/common';
import { getOpcodesForHF } from '@ethereumjs/evm';

/** The opcodes this engine implements; a fork that defines another (EOF, Amsterdam's) runs on ethereumjs. */
const IMPLEMENTED = new Set<number>([
  ...range(0x00, 0x0b),
  ...range(0x10, 0x1e),
  0x20,
  ...range(0x30, 0x3f),
  ...range(0x40, 0x4a),
  ...range(0x50, 0x5f),
  ...range(0x60, 0x7f),
  ...range(0x80, 0x9f),
  ...range(0xa0, 0xa4),
  0xf0,
  0xf1,
  0xf2,
  0xf3,
  0xf4,
  0xf5,
  0xfa,
  0xfd,
  0xfe,
  0xff,
]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

export interface ForkRules {
  readonly hardfork: string;
  /** Static gas of each opcode; -1 where the fork has no such opcode, and for INVALID. */
  readonly fee: Int32Array;
  /**
   * 1 for an opcode whose gas ethereumjs works out before it runs (its dynamic gas handler, which
   * reads the operands and may fail on them first); its static gas is charged with that gas.
   */
  readonly dynamic: Uint8Array;
  // The forks and EIPs whose rules the interpreter and the message layer branch on.
  readonly homestead: boolean;
  readonly tangerineWhistle: boolean;
  readonly spuriousDragon: boolean;
  readonly byzantium: boolean;
  readonly constantinople: boolean;
  /** Constantinople alone: EIP-1283's net gas metering (removed by Petersburg). */
  readonly eip1283: boolean;
  readonly istanbul: boolean;
  readonly berlin: boolean;
  readonly london: boolean;
  readonly paris: boolean;
  readonly shanghai: boolean;
  readonly cancun: boolean;
  readonly prague: boolean;
  readonly osaka: boolean;
  /** EIP-3541: new code may not start with 0xEF. */
  readonly eip3541: boolean;
  /** EIP-3860: init code size limit and word cost. */
  readonly eip3860: boolean;
  /** EIP-6780: SELFDESTRUCT deletes only in the transaction that created the contract. */
  readonly eip6780: boolean;
  /** EIP-7702: delegation designators. */
  readonly eip7702: boolean;
  // Gas parameters (common.param), as numbers.
  readonly expByteGas: number;
  readonly keccak256WordGas: number;
  readonly copyGas: number;
  readonly memoryGas: number;
  readonly quadCoefficientDivGas: number;
  readonly logGas: number;
  readonly logDataGas: number;
  readonly logTopicGas: number;
  readonly createDataGas: number;
  readonly callStipendGas: number;
  readonly callValueTransferGas: number;
  readonly callNewAccountGas: number;
  readonly selfdestructRefundGas: number;
  readonly sstoreSetGas: number;
  readonly sstoreResetGas: number;
  readonly sstoreRefundGas: number;
  readonly netSstoreNoopGas: number;
  readonly netSstoreInitGas: number;
  readonly netSstoreCleanGas: number;
  readonly netSstoreDirtyGas: number;
  readonly netSstoreClearRefundGas: number;
  readonly netSstoreResetRefundGas: number;
  readonly netSstoreResetClearRefundGas: number;
  readonly sstoreSentryEIP2200Gas: number;
  readonly sstoreNoopEIP2200Gas: number;
  readonly sstoreDirtyEIP2200Gas: number;
  readonly sstoreInitEIP2200Gas: number;
  readonly sstoreInitRefundEIP2200Gas: number;
  readonly sstoreCleanEIP2200Gas: number;
  readonly sstoreCleanRefundEIP2200Gas: number;
  readonly sstoreClearRefundEIP2200Gas: number;
  readonly coldsloadGas: number;
  readonly coldaccountaccessGas: number;
  readonly warmstoragereadGas: number;
  readonly initCodeWordGas: number;
  readonly keccak256Gas: number;
  readonly maxRefundQuotient: number;
  readonly maxCodeSize: number;
  readonly maxInitCodeSize: number;
  readonly stackLimit: number;
}

const cache = new WeakMap<Common, Map<string, ForkRules | null>>();

/**
 * The rules of `common`'s current hardfork (an EVM's Common: its parameters carry the node's code
 * size limit), or null when the fork has an opcode or an EIP this engine does not implement (the
 * caller runs ethereumjs then). `unlimited` drops the code and init code size limits (--disable-code-size-limit).
 */
export function rulesOf(common: Common, unlimited = false): ForkRules | null {
  let byFork = cache.get(common);
  if (byFork === undefined) cache.set(common, (byFork = new Map()));
  const key = `${common.hardfork()}/${unlimited}`;
  let rules = byFork.get(key);
  if (rules === undefined) {
    rules = resolve(common, unlimited);
    byFork.set(key, rules);
  }
  return rules;
}

/**
 * EIPs that change how code runs and that this engine does not implement (Amsterdam's, EOF, Verkle):
 * a Common with one of them runs ethereumjs.
 */
const UNIMPLEMENTED_EIPS = [2780, 3540, 6800, 7708, 7709, 7864, 7928, 8024, 8037, 8038, 8246];

function resolve(common: Common, unlimited: boolean): ForkRules | null {
  if (UNIMPLEMENTED_EIPS.some((n) => common.isActivatedEIP(n))) return null;
  const fee = new Int32Array(256).fill(-1);
  const dynamic = new Uint8Array(256);
  for (const [code, op] of getOpcodesForHF(common).opcodes) {
    if (!IMPLEMENTED.has(code)) return null;
    // INVALID (0xfe) fails before it runs, as an undefined opcode does (ethereumjs's isInvalid).
    fee[code] = op.name === 'INVALID' ? -1 : op.fee;
    dynamic[code] = op.dynamicGas ? 1 : 0;
  }
  const p = (name: string): number => {
    try {
      const v = common.param(name);
      return v === undefined || v === null ? 0 : Number(v);
    } catch {
      return 0;
    }
  };
  const gte = (h: Hardfork) => common.gteHardfork(h);
  const eip = (n: number) => common.isActivatedEIP(n);
  const maxCode = unlimited || !gte(Hardfork.SpuriousDragon) ? Infinity : p('maxCodeSize');
  return {
    hardfork: common.hardfork(),
    fee,
    dynamic,
    homestead: gte(Hardfork.Homestead),
    tangerineWhistle: gte(Hardfork.TangerineWhistle),
    spuriousDragon: gte(Hardfork.SpuriousDragon),
    byzantium: gte(Hardfork.Byzantium),
    constantinople: gte(Hardfork.Constantinople),
    eip1283: common.hardfork() === Hardfork.Constantinople,
    istanbul: gte(Hardfork.Istanbul),
    berlin: eip(2929),
    london: gte(Hardfork.London),
    paris: gte(Hardfork.Paris),
    shanghai: gte(Hardfork.Shanghai),
    cancun: gte(Hardfork.Cancun),
    prague: gte(Hardfork.Prague),
    osaka: gte(Hardfork.Osaka),
    eip3541: eip(3541),
    eip3860: eip(3860),
    eip6780: eip(6780),
    eip7702: eip(7702),
    expByteGas: p('expByteGas'),
    keccak256WordGas: p('keccak256WordGas'),
    copyGas: p('copyGas'),
    memoryGas: p('memoryGas'),
    quadCoefficientDivGas: p('quadCoefficientDivGas'),
    logGas: p('logGas'),
    logDataGas: p('logDataGas'),
    logTopicGas: p('logTopicGas'),
    createDataGas: p('createDataGas'),
    callStipendGas: p('callStipendGas'),
    callValueTransferGas: p('callValueTransferGas'),
    callNewAccountGas: p('callNewAccountGas'),
    selfdestructRefundGas: p('selfdestructRefundGas'),
    sstoreSetGas: p('sstoreSetGas'),
    sstoreResetGas: p('sstoreResetGas'),
    sstoreRefundGas: p('sstoreRefundGas'),
    netSstoreNoopGas: p('netSstoreNoopGas'),
    netSstoreInitGas: p('netSstoreInitGas'),
    netSstoreCleanGas: p('netSstoreCleanGas'),
    netSstoreDirtyGas: p('netSstoreDirtyGas'),
    netSstoreClearRefundGas: p('netSstoreClearRefundGas'),
    netSstoreResetRefundGas: p('netSstoreResetRefundGas'),
    netSstoreResetClearRefundGas: p('netSstoreResetClearRefundGas'),
    sstoreSentryEIP2200Gas: p('sstoreSentryEIP2200Gas'),
    sstoreNoopEIP2200Gas: p('sstoreNoopEIP2200Gas'),
    sstoreDirtyEIP2200Gas: p('sstoreDirtyEIP2200Gas'),
    sstoreInitEIP2200Gas: p('sstoreInitEIP2200Gas'),
    sstoreInitRefundEIP2200Gas: p('sstoreInitRefundEIP2200Gas'),
    sstoreCleanEIP2200Gas: p('sstoreCleanEIP2200Gas'),
    sstoreCleanRefundEIP2200Gas: p('sstoreCleanRefundEIP2200Gas'),
    sstoreClearRefundEIP2200Gas: p('sstoreClearRefundEIP2200Gas'),
    coldsloadGas: p('coldsloadGas'),
    coldaccountaccessGas: p('coldaccountaccessGas'),
    warmstoragereadGas: p('warmstoragereadGas'),
    initCodeWordGas: p('initCodeWordGas'),
    keccak256Gas: p('keccak256Gas'),
    maxRefundQuotient: p('maxRefundQuotient'),
    maxCodeSize: maxCode,
    maxInitCodeSize: unlimited || !eip(3860) ? Infinity : p('maxInitCodeSize'),
    stackLimit: p('stackLimit') || 1024,
  };
}
