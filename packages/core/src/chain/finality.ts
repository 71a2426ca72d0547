/**
 * The `safe` and `finalized` tags. By default they are depths behind the head (`--safe-depth`,
 * `--finality-depth`); a chain that is followed rather than mined (an import, l2_setFinality) sets
 * them to blocks instead, kept across restarts, as a node hears them from its consensus client.
 */
import { InvalidArgumentError } from '../errors';
import type { ChainStore } from '../store/chainStore';
import type { KvOp, KvStore } from '../store/kvStore';

/** The `safe` and `finalized` blocks of a chain followed rather than mined. */
export interface Finality {
  safe: bigint;
  finalized: bigint;
}

const META_FINALITY = new Uint8Array([0x6d, ...new TextEncoder().encode('finality')]);

export class FinalityTags {
  private constructor(
    private readonly store: ChainStore,
    /** `finalized` is this many blocks behind the head when not set; default 64 (as Anvil). */
    readonly finalizedDepth: bigint,
    /** `safe` is this many blocks behind the head when not set; default 32 (as Anvil). */
    readonly safeDepth: bigint,
    /** As set; undefined: depths behind the head. */
    private current: Finality | undefined,
  ) {}

  /** Whether the tags are another chain's, followed (`follow`): in memory only. */
  private followed = false;

  /** Whether the tags follow another chain's finality (the L2 beside an L1). */
  get following(): boolean {
    return this.followed;
  }

  static async load(kv: KvStore, store: ChainStore, finalizedDepth: bigint, safeDepth: bigint): Promise<FinalityTags> {
    const row = await kv.get(META_FINALITY);
    let current: Finality | undefined;
    if (row !== undefined) {
      const { safe, finalized } = JSON.parse(new TextDecoder().decode(row)) as Record<string, string>;
      current = { safe: BigInt(safe), finalized: BigInt(finalized) };
    }
    return new FinalityTags(store, finalizedDepth, safeDepth, current);
  }

  /** The block a tag stands for with the head at `head`. */
  resolve(tag: 'safe' | 'finalized', head: bigint): bigint {
    const set = this.current?.[tag];
    if (set !== undefined) return set < head ? set : head;
    const depth = tag === 'safe' ? this.safeDepth : this.finalizedDepth;
    return head > depth ? head - depth : 0n;
  }

  /**
   * Sets both tags to these blocks (finalized ≤ safe ≤ `head`), kept across restarts; undefined goes
   * back to depths behind the head. Inside the chain's queue.
   */
  async set(finality: Finality | undefined, head: bigint): Promise<void> {
    if (finality !== undefined) {
      const { safe, finalized } = finality;
      if (finalized > safe || safe > head || finalized < 0n)
        throw new InvalidArgumentError(
          `finalized (${finalized}) must not be after safe (${safe}), nor safe after the head (${head})`,
        );
    }
    await this.store.write([finality === undefined ? { type: 'del', key: META_FINALITY } : finalityOp(finality)]);
    this.current = finality;
    this.followed = false;
  }

  /**
   * Both tags at `block`, not kept across restarts: a chain that follows another's finality (the L2
   * beside an L1, messaging/relay.ts) is told again at start. Inside the chain's queue.
   */
  follow(block: bigint): void {
    this.current = { safe: block, finalized: block };
    this.followed = true;
  }

  /** Tags set above block `n` come down to it when the chain is cut back there: they name blocks that exist. */
  clampTo(n: bigint): { ops: KvOp[]; apply(): void } {
    const f = this.current;
    const clamped = f === undefined || f.safe <= n ? f : { safe: n, finalized: f.finalized < n ? f.finalized : n };
    return {
      ops: clamped !== f && clamped !== undefined && !this.followed ? [finalityOp(clamped)] : [],
      apply: () => {
        this.current = clamped;
      },
    };
  }
}

/** The row that keeps `safe` and `finalized` across restarts. */
function finalityOp(f: Finality): KvOp {
  const json = JSON.stringify({ safe: String(f.safe), finalized: String(f.finalized) });
  return { type: 'put', key: META_FINALITY, value: new TextEncoder().encode(json) };
}
