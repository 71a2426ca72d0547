/**
 * A forked chain's view of its remote: the state at the fork block, fetched as the EVM first reads it
 * and proven before use, and the remote's headers up to the fork block.
 *
 * The local tries are the remote's tries with the parts not yet read left as hash references. A read
 * that reaches a node the store lacks asks the remote for `eth_getProof` of that key at the fork
 * block and walks the proof from the fork block's state root: only the nodes the walk used are kept,
 * so every node held is one the real chain holds at that place. Since a local change never moves a
 * subtree it did not touch, the fork block's proof of a key also holds the nodes a later local trie
 * lacks on that key's path, and the roots of local blocks are the roots the real chain would compute
 * for the same changes.
 *
 * Code is fetched with `eth_getCode` and kept only when it hashes to the account's code hash.
 */
import { createBlockHeader, valuesArrayToHeaderData } from '@ethereumjs/block';
import type { BlockHeader, BlockHeaderBytes, HeaderData } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import { bytesToHex, bytesToUnprefixedHex, concatBytes, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { NestedUint8Array } from '@ethereumjs/util';

import { keccak256 } from '../config/fastCrypto';
import { ForkError } from '../errors';
import { MissingTrieNodeError, trieValue } from '../state/updateTrie';
import { decodeRlp } from '../support/rlp';
import { ForkCache } from './forkCache';

/** A remote block's header fields as its node gave them, and the hash it gave. */
export interface RemoteHeader {
  fields: HeaderData;
  hash: Uint8Array;
}

/** An `eth_getProof` answer's nodes: the account's, then each asked slot's. */
export interface RemoteProof {
  accountProof: Uint8Array[];
  storageProof: Uint8Array[][];
}

/** The remote node a chain is forked from, in typed values (the JSON-RPC client is the rpc package's). */
export interface ForkSource {
  /** The remote as messages name it (its URL without credentials). */
  readonly name: string;
  chainId(): Promise<bigint>;
  blockNumber(): Promise<bigint>;
  /** Block `n`'s header; undefined when the remote has no such block. */
  header(n: bigint): Promise<RemoteHeader | undefined>;
  proof(address: Uint8Array, slots: Uint8Array[], block: bigint): Promise<RemoteProof>;
  code(address: Uint8Array, block: bigint): Promise<Uint8Array>;
}

/**
 * The longest path prefix (nibbles) whose node a deletion may ask for by searching a key that hashes
 * under it: 16^n hashes on average, measured at ~0.1 s for 5 nibbles and ~8 s for 6.
 */
const MAX_REVEAL_NIBBLES = 6;

export class ForkState {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** The fork block's state root and hash, set once its header is read. */
  stateRoot: Uint8Array = KECCAK256_RLP;
  hash: Uint8Array = new Uint8Array(32);

  constructor(
    /** The remote it reads from; anvil_setRpcUrl points it at another serving the same chain. */
    public source: ForkSource,
    /** The fork block. */
    readonly number: bigint,
    readonly cache: ForkCache,
    private readonly common: Common,
  ) {}

  /** A fetched trie node or code, by the state database's key. */
  get(key: string): Uint8Array | undefined {
    return this.cache.entries.state.get(key);
  }

  /** Fetches and keeps the nodes on `address`'s path in the fork block's account trie. */
  proveAccount(address: Uint8Array): Promise<void> {
    return this.once(`a${bytesToUnprefixedHex(address)}`, () => this.prove(address, undefined));
  }

  /** Fetches and keeps the nodes on `slot`'s path in `address`'s storage trie at the fork block (and the account's). */
  proveSlot(address: Uint8Array, slot: Uint8Array): Promise<void> {
    return this.once(`s${bytesToUnprefixedHex(address)}${bytesToUnprefixedHex(slot)}`, () => this.prove(address, slot));
  }

  /** The code of `address` at the fork block, which must hash to `codeHash`. */
  async code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array> {
    const key = bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash));
    await this.once(`c${key}`, async () => {
      if (this.get(key) !== undefined) return;
      const code = await this.source.code(address, this.number);
      if (!equalsBytes(keccak256(code), codeHash))
        throw new ForkError(
          `${this.source.name} answered eth_getCode of ${bytesToHex(address)} at block ${this.number} with code that does not hash to the account's code hash`,
        );
      this.cache.putState(key, code);
    });
    return this.get(key)!;
  }

  /**
   * Fetches the fork block's node at `prefix` in the account trie (no `owner`) or in `owner`'s storage
   * trie: found through a key that hashes under the prefix, whose proof passes that node.
   */
  async reveal(prefix: number[], owner?: Uint8Array): Promise<void> {
    if (prefix.length > MAX_REVEAL_NIBBLES)
      throw new ForkError(
        `a deletion needs a node of the forked ${owner === undefined ? 'account trie' : `storage of ${bytesToHex(owner)}`} ` +
          `${prefix.length} levels deep that was never read, and no key of a proof reaches it in reasonable time`,
      );
    const key = keyUnder(prefix, owner === undefined ? 20 : 32);
    if (owner === undefined) await this.proveAccount(key);
    else await this.proveSlot(owner, key);
  }

  /** The remote's header of block `n`, checked against the hash it gave; undefined when it has none. */
  async header(n: bigint): Promise<BlockHeader | undefined> {
    const cached = this.cache.entries.headers.get(n);
    if (cached !== undefined) return headerFromRlp(cached, this.common);
    const remote = await this.source.header(n);
    if (remote === undefined) return undefined;
    const header = createBlockHeader(remote.fields, {
      common: headerCommon(this.common, remote.fields),
      skipConsensusFormatValidation: true,
    });
    if (!equalsBytes(header.hash(), remote.hash))
      throw new ForkError(
        `${this.source.name}'s block ${n} has hash ${bytesToHex(remote.hash)}, but its header's fields hash to ${bytesToHex(header.hash())}: its header format is not one this node knows`,
      );
    this.cache.putHeader(n, header.serialize());
    return header;
  }

  private once(key: string, fetch: () => Promise<void>): Promise<void> {
    let p = this.inFlight.get(key);
    if (p === undefined) {
      p = fetch().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  private async prove(address: Uint8Array, slot: Uint8Array | undefined): Promise<void> {
    // Held already (the cache of an earlier start): nothing to ask.
    const account = await this.walk(this.stateRoot, keccak256(address), []);
    if (
      account !== undefined &&
      (slot === undefined || (await this.walk(storageRoot(account), keccak256(slot), [])) !== undefined)
    )
      return;
    // An account not held yet has its code asked for in the same batch: a contract's is read next.
    const [proof, code] = await Promise.all([
      this.source.proof(address, slot === undefined ? [] : [slot], this.number),
      account === undefined ? this.source.code(address, this.number) : undefined,
    ]);
    const what = `eth_getProof of ${bytesToHex(address)}${slot === undefined ? '' : ` slot ${bytesToHex(slot)}`} at block ${this.number}`;
    const proven = await this.keepProof(proof.accountProof, this.stateRoot, keccak256(address), what);
    if (slot !== undefined)
      await this.keepProof(proof.storageProof[0] ?? [], storageRoot(proven), keccak256(slot), what);
    // Kept only as the proven account's code.
    const codeHash = proven === null ? undefined : (RLP.decode(proven) as Uint8Array[])[3];
    if (code !== undefined && code.length > 0 && codeHash !== undefined && equalsBytes(keccak256(code), codeHash))
      this.cache.putState(bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, codeHash)), code);
  }

  /**
   * The value at `path` in the trie at `root` through the nodes held and `nodes`, which the walk
   * keeps once it reaches it; undefined when a node on the way is missing.
   */
  private async walk(root: Uint8Array, path: Uint8Array, nodes: Uint8Array[]): Promise<Uint8Array | null | undefined> {
    if (equalsBytes(root, KECCAK256_RLP)) return null;
    const byHash = new Map<string, Uint8Array>();
    for (const n of nodes) byHash.set(bytesToUnprefixedHex(keccak256(n)), n);
    const used: [string, Uint8Array][] = [];
    const load = (ref: Uint8Array | NestedUint8Array): NestedUint8Array => {
      if (Array.isArray(ref)) return ref;
      const key = bytesToUnprefixedHex(ref as Uint8Array);
      const encoded = byHash.get(key) ?? this.get(key);
      if (encoded === undefined) throw new MissingTrieNodeError(ref as Uint8Array);
      if (byHash.has(key)) used.push([key, encoded]);
      return decodeRlp(encoded) as NestedUint8Array;
    };
    let value: Uint8Array | null;
    try {
      value = await trieValue(load, root, path);
    } catch (e) {
      if (e instanceof MissingTrieNodeError) return undefined;
      throw e;
    }
    for (const [key, encoded] of used) this.cache.putState(key, encoded);
    return value;
  }

  /** The value at `path` through a proof's `nodes`, which are kept; a proof that does not reach it is the remote's error. */
  private async keepProof(
    nodes: Uint8Array[],
    root: Uint8Array,
    path: Uint8Array,
    what: string,
  ): Promise<Uint8Array | null> {
    const value = await this.walk(root, path, nodes);
    if (value === undefined)
      throw new ForkError(
        `${this.source.name} answered ${what} with a proof that does not reach the value from the block's root`,
      );
    return value;
  }
}

/** An account's storage root, from its RLP (none: the empty trie). */
function storageRoot(account: Uint8Array | null): Uint8Array {
  return account === null ? KECCAK256_RLP : ((RLP.decode(account) as Uint8Array[])[2] ?? KECCAK256_RLP);
}

/** A key of `size` bytes whose keccak-256 starts with the nibbles `prefix`. */
export function keyUnder(prefix: number[], size: number): Uint8Array {
  const key = new Uint8Array(size);
  const view = new DataView(key.buffer);
  for (let i = 1; ; i++) {
    view.setUint32(size - 4, i);
    const h = keccak256(key);
    let k = 0;
    while (k < prefix.length && (k % 2 === 0 ? h[k >> 1] >> 4 : h[k >> 1] & 0x0f) === prefix[k]) k++;
    if (k === prefix.length) return key;
  }
}

/** A Common for a remote header: the newest fork whose header fields it has, so it hashes as given. */
function headerCommon(common: Common, fields: HeaderData): Common {
  const fork =
    fields.requestsHash !== undefined
      ? Hardfork.Prague
      : fields.parentBeaconBlockRoot !== undefined
        ? Hardfork.Cancun
        : fields.withdrawalsRoot !== undefined
          ? Hardfork.Shanghai
          : fields.baseFeePerGas !== undefined
            ? Hardfork.London
            : Hardfork.Berlin;
  const c = common.copy();
  c.setHardfork(fork);
  return c;
}

export function headerFromRlp(rlp: Uint8Array, common: Common): BlockHeader {
  const fields = valuesArrayToHeaderData(RLP.decode(rlp) as BlockHeaderBytes);
  return createBlockHeader(fields, { common: headerCommon(common, fields), skipConsensusFormatValidation: true });
}

/** What a chain is forked from (`--fork-url` and its options). */
export interface ForkOptions {
  source: ForkSource;
  /** The block to fork at; default the remote's latest; negative, that many blocks before it (Anvil's -N). */
  blockNumber?: bigint;
  /** The chain id the remote must have (--fork-chain-id). */
  chainId?: bigint;
  /** Where fetched state is kept between starts (--fork-cache); undefined keeps it in memory only. */
  cacheDir?: string;
}

/** The remote's chain id and fork block, checked; the fork state over the cache for that chain. */
export async function openForkState(
  opts: ForkOptions,
  common: (chainId: bigint) => Common,
): Promise<{ fork: ForkState; header: BlockHeader; chainId: bigint }> {
  const { source } = opts;
  const chainId = await source.chainId();
  if (opts.chainId !== undefined && opts.chainId !== chainId)
    throw new ForkError(`${source.name} serves chain id ${chainId}, not ${opts.chainId}`);
  const asked = opts.blockNumber;
  const number = asked !== undefined && asked >= 0n ? asked : (await source.blockNumber()) + (asked ?? 0n);
  if (number < 0n)
    throw new ForkError(`${source.name} has no block ${number} (its latest is ${number - (asked ?? 0n)})`);
  const cache = ForkCache.open(opts.cacheDir, chainId);
  const fork = new ForkState(source, number, cache, common(chainId));
  const header = await fork.header(number);
  if (header === undefined) {
    cache.close();
    throw new ForkError(`${source.name} has no block ${number} (its latest is ${await source.blockNumber()})`);
  }
  fork.stateRoot = header.stateRoot;
  fork.hash = header.hash();
  return { fork, header, chainId };
}
