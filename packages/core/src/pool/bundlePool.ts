/**
 * Bundles (linea_sendBundle): transactions for one block number, included in order and whole, or not
 * at all. As Linea's bundle pool (Consensys/linea-monorepo cb180134,
 * `linea-besu/plugins/linea-sequencer/sequencer/src/main/java/net/consensys/linea/bundles/`): keyed
 * by the bundle hash (that of the replacement UUID when one is given), so a bundle sent again with
 * the same key replaces the first; dropped once their block is built.
 */
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import type { PoolTx } from './txPool';

export interface Bundle {
  hash: Uint8Array;
  txs: PoolTx[];
  blockNumber: bigint;
  /** Seconds; the bundle is for blocks strictly after it. */
  minTimestamp?: number;
  /** Seconds; the bundle is for blocks strictly before it. */
  maxTimestamp?: number;
  /** Hashes (hex) of the transactions allowed to revert. */
  revertible: Set<string>;
  uuid?: string;
}

/** A UUID's 16 bytes (Java's UUID.fromString: five groups of hex digits, each read as a number); undefined if it is none. */
export function uuidBytes(uuid: string): Uint8Array | undefined {
  const m = /^([0-9a-fA-F]{1,8})-([0-9a-fA-F]{1,4})-([0-9a-fA-F]{1,4})-([0-9a-fA-F]{1,4})-([0-9a-fA-F]{1,12})$/.exec(
    uuid,
  );
  if (m === null) return undefined;
  const widths = [8, 4, 4, 4, 12];
  const hex = m
    .slice(1)
    .map((g, i) => g.padStart(widths[i], '0'))
    .join('');
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/**
 * The bundle hash linea_sendBundle answers (LineaLimitedBundlePool.UUIDToHash; LineaSendBundle): the
 * keccak of the UUID's two longs when one is given, else of the raw transactions one after another.
 */
export function bundleHash(raws: Uint8Array[], uuid: Uint8Array | undefined): Uint8Array {
  return keccak256(uuid ?? concatBytes(...raws));
}

export class BundlePool {
  private readonly bundles = new Map<string, Bundle>();

  /** Adds `bundle`, replacing one with the same hash. */
  put(bundle: Bundle): void {
    this.bundles.set(bytesToHex(bundle.hash), bundle);
  }

  /** linea_cancelBundle: removes the bundle of this UUID; whether there was one. */
  cancel(uuid: Uint8Array): boolean {
    return this.bundles.delete(bytesToHex(bundleHash([], uuid)));
  }

  /** The bundles for block `number` at `timestamp`, in the order they came (BundleConstraintTransactionSelector's time window). */
  forBlock(number: bigint, timestamp: bigint): Bundle[] {
    const t = Number(timestamp);
    return [...this.bundles.values()].filter(
      (b) =>
        b.blockNumber === number &&
        (b.minTimestamp === undefined || b.minTimestamp < t) &&
        (b.maxTimestamp === undefined || b.maxTimestamp > t),
    );
  }

  /** Drops the bundles for block `number` and before: their block is built. */
  dropUpTo(number: bigint): void {
    for (const [key, b] of this.bundles) if (b.blockNumber <= number) this.bundles.delete(key);
  }

  get size(): number {
    return this.bundles.size;
  }
}
