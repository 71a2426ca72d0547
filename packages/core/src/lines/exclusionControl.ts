/**
 * What a test suite sets to drive exclusions without crafting transactions heavy enough to
 * overflow a module:
 *  - forced exclusions: the next transaction matching a rule (hash, sender, recipient, selector; all
 *    that are given) is excluded at the chosen stage for the chosen module, once;
 *  - a deny list: transactions from or to a listed address are refused with the words of Linea's
 *    sequencer, and dropped from blocks if they were in the pool before the address was listed.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import type { TypedTransaction } from '@ethereumjs/tx';

import type { RejectionStage } from './exclusionStore';
import type { PoolTx } from '../pool/txPool';

export interface ExclusionMatch {
  hash?: Uint8Array;
  from?: Uint8Array;
  to?: Uint8Array;
  /** The first four bytes of the calldata. */
  selector?: Uint8Array;
}

export interface ForcedExclusion extends ExclusionMatch {
  stage: Exclude<RejectionStage, 'P2P'>;
  module: string;
  /** The count reported; the module's limit plus one when not given. */
  count?: number;
}

export class ExclusionControl {
  private readonly rules = new Map<bigint, ForcedExclusion>();
  private nextId = 1n;
  private readonly denied = new Set<string>();

  /** Adds a one-shot rule; returns its id. */
  force(rule: ForcedExclusion): bigint {
    const id = this.nextId++;
    this.rules.set(id, rule);
    return id;
  }

  /** Drops every rule not used yet; returns how many there were. */
  clearForced(): number {
    const n = this.rules.size;
    this.rules.clear();
    return n;
  }

  /** The oldest rule `ptx` matches at `stage`; with `consume`, the rule is used up. */
  match(ptx: PoolTx, stage: ForcedExclusion['stage'], consume: boolean): ForcedExclusion | undefined {
    for (const [id, rule] of this.rules) {
      if (rule.stage !== stage || !matches(rule, ptx)) continue;
      if (consume) this.rules.delete(id);
      return rule;
    }
    return undefined;
  }

  setDenyList(addresses: Uint8Array[]): void {
    this.denied.clear();
    for (const a of addresses) this.denied.add(bytesToHex(a));
  }

  denyList(): string[] {
    return [...this.denied];
  }

  /** Linea's refusal of a transaction from or to a denied address; undefined when neither is. */
  deniedReason(tx: TypedTransaction, sender: Uint8Array): string | undefined {
    if (this.denied.size === 0) return undefined;
    const from = bytesToHex(sender);
    if (this.denied.has(from))
      return `sender ${from} is blocked as appearing on the SDN or other legally prohibited list`;
    const to = tx.to === undefined ? undefined : bytesToHex(tx.to.bytes);
    if (to !== undefined && this.denied.has(to))
      return `recipient ${to} is blocked as appearing on the SDN or other legally prohibited list`;
    return undefined;
  }
}

function matches(rule: ExclusionMatch, ptx: PoolTx): boolean {
  const { tx } = ptx;
  if (rule.hash !== undefined && !equalsBytes(rule.hash, ptx.hash)) return false;
  if (rule.from !== undefined && !equalsBytes(rule.from, ptx.sender)) return false;
  if (rule.to !== undefined && (tx.to === undefined || !equalsBytes(rule.to, tx.to.bytes))) return false;
  if (rule.selector !== undefined && !equalsBytes(rule.selector, tx.data.subarray(0, 4))) return false;
  return true;
}
