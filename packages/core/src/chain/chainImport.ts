/**
 * Import and export of blocks as geth writes them (concatenated block RLP). An imported block is run
 * under its own header and kept only if everything its header commits to comes out the same (state,
 * receipts, transactions, bloom, gas, ommers, withdrawals, requests): the chain it builds is the
 * chain it read. The header rules execution does not check are checked as geth's engines check them.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block';
import type { Block, BlockHeader } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';

import { HeaderNotFoundError, ImportError } from '../errors';
import { asCandidates, buildBlock, buildFields } from '../exec/blockBuilder';
import type { BuildResult } from '../exec/blockBuilder';
import { ethereumjsReason } from '../pool/txCodec';
import type { FinalityTags } from './finality';
import { ruleBaseFee } from './head';
import type { ChainHead } from './head';
import type { LineGate } from './lineGate';

const EMPTY_BYTES = new Uint8Array(0);

export class ChainImport {
  constructor(
    private readonly head: ChainHead,
    private readonly lines: LineGate,
    private readonly finality: FinalityTags,
  ) {}

  /** Blocks `from`..`to` as `geth export` writes them: each block's RLP, one after another. */
  async exportBlocks(from: bigint, to: bigint): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (let n = from; n <= to; n++) {
      const block = await this.head.store.getBlock(n);
      if (block === undefined) throw new HeaderNotFoundError();
      out.push(block.serialize());
    }
    return out;
  }

  /**
   * Imports blocks as `geth import` reads them (concatenated block RLP). Blocks this chain already
   * has are skipped; each new one must extend the head, and is run under its own header: its state
   * root, receipts root, transactions root, logs bloom and gas used must come out as the block says.
   * A block that does not stops the import with an ImportError naming it; the blocks before it stay.
   */
  importBlocks(
    rlp: Uint8Array,
    onBlock?: (block: Block, progress: { bytesRead: number; bytes: number }) => void,
    opts: { head?: bigint } = {},
  ): Promise<{ imported: number; skipped: number; gas: bigint }> {
    // One hold on the chain for the whole file: no block is mined between two imported ones.
    return this.head.exclusive(async () => {
      const before = this.head.number;
      try {
        return await this.importAll(rlp, onBlock, opts.head);
      } finally {
        // The chain is now one this node follows: safe and finalized at the imported tip, also when
        // a block stopped the import (the blocks before it stay).
        const tip = this.head.number;
        if (tip > before) await this.finality.set({ safe: tip, finalized: tip }, tip);
      }
    });
  }

  private async importAll(
    rlp: Uint8Array,
    onBlock?: (block: Block, progress: { bytesRead: number; bytes: number }) => void,
    last?: bigint,
  ): Promise<{ imported: number; skipped: number; gas: bigint }> {
    const { head } = this;
    let rest = rlp;
    let imported = 0;
    let skipped = 0;
    let gas = 0n;
    while (rest.length > 0 && (last === undefined || head.number < last)) {
      let values: Uint8Array[];
      try {
        const decoded = RLP.decode(rest, true) as unknown as { data: Uint8Array[]; remainder: Uint8Array };
        values = decoded.data;
        rest = decoded.remainder;
      } catch (e) {
        throw new ImportError(`block ${head.number + 1n}: not a block's RLP (${(e as Error).message})`);
      }
      const number = blockNumberOf(values);
      if (number <= head.number) {
        const mine = await head.store.getBlock(number);
        const theirs = this.decodeBlock(values);
        if (mine !== undefined && number === 0n && head.number === 0n && !equalsBytes(mine.hash(), theirs.hash())) {
          // A fresh chain with the same genesis state (a dev chain's genesis differs only by the time
          // it was made at): it takes the file's genesis block.
          if (equalsBytes(mine.header.stateRoot, theirs.header.stateRoot)) {
            await head.store.commit(head.store.replaceGenesisOps(mine, theirs), theirs, []);
            skipped++;
            continue;
          }
        }
        if (mine === undefined || !equalsBytes(mine.hash(), theirs.hash()))
          throw new ImportError(
            `block ${number}: hash ${bytesToHex(theirs.hash())} differs from this chain's ${bytesToHex(mine?.hash() ?? new Uint8Array())}; import into a chain started with the same genesis`,
          );
        skipped++;
        continue;
      }
      const block = await this.importLocked(values, number);
      gas += block.header.gasUsed;
      imported++;
      onBlock?.(block, { bytesRead: rlp.length - rest.length, bytes: rlp.length });
    }
    return { imported, skipped, gas };
  }

  /** A block from its RLP values, under the fork its number and timestamp select. */
  private decodeBlock(values: Uint8Array[]): Block {
    const number = blockNumberOf(values);
    try {
      const header = values[0] as unknown as Uint8Array[];
      this.head.setForkAt(number, bytesToBigIntOrZero(header[11]));
      // Ommers are read under their own fork (a pre-London ommer has no base fee), which needs setHardfork.
      const ommers = (values[2] as unknown as unknown[] | undefined)?.length ?? 0;
      return createBlockFromBytesArray(values as never, {
        common: this.head.common,
        setHardfork: ommers > 0 ? true : undefined,
      });
    } catch (e) {
      const message = (e as Error).message;
      const why = /chain ID/.test(message)
        ? `a transaction is signed for another chain than this one (chain id ${this.head.common.chainId()})`
        : message.split('\n')[0];
      throw new ImportError(`block ${number}: ${why}`);
    }
  }

  private async importLocked(values: Uint8Array[], number: bigint): Promise<Block> {
    const { head } = this;
    const parent = await head.block();
    if (number !== parent.header.number + 1n)
      throw new ImportError(`block ${number}: does not extend the head (block ${parent.header.number})`);
    const block = this.decodeBlock(values);
    const h = block.header;
    if (!equalsBytes(h.parentHash, parent.hash()))
      throw new ImportError(
        `block ${number}: parentHash ${bytesToHex(h.parentHash)} is not block ${parent.header.number}'s hash ${bytesToHex(parent.hash())}`,
      );
    this.checkHeaderRules(h, parent.header);
    await this.checkOmmers(block);
    const senders = block.transactions.map((tx, i) => {
      try {
        return tx.getSenderAddress().bytes;
      } catch {
        throw new ImportError(`block ${number}: transaction ${i} has no valid signature`);
      }
    });
    const candidates = asCandidates(block.transactions, senders);
    let result: BuildResult;
    try {
      result = await buildBlock({
        vm: head.vm,
        header: buildFields(h),
        candidates,
        lineCounter: this.lines.counter,
        limits: undefined,
        body: { uncles: block.uncleHeaders, withdrawals: block.withdrawals ?? [] },
        daoForkBlock: head.daoForkBlock,
      });
    } catch (e) {
      await head.discardBuild();
      throw e;
    }
    const built = result.block.header;
    const mismatch = (
      [
        ['transactions', BigInt(block.transactions.length), BigInt(result.included.length)],
        ['gasUsed', h.gasUsed, built.gasUsed],
        ['stateRoot', h.stateRoot, built.stateRoot],
        ['receiptsRoot', h.receiptTrie, built.receiptTrie],
        ['transactionsRoot', h.transactionsTrie, built.transactionsTrie],
        ['logsBloom', h.logsBloom, built.logsBloom],
        ['sha3Uncles', h.uncleHash, built.uncleHash],
        ['withdrawalsRoot', h.withdrawalsRoot ?? EMPTY_BYTES, built.withdrawalsRoot ?? EMPTY_BYTES],
        ['blobGasUsed', h.blobGasUsed ?? 0n, built.blobGasUsed ?? 0n],
        ['requestsHash', h.requestsHash ?? EMPTY_BYTES, built.requestsHash ?? EMPTY_BYTES],
        ['hash', block.hash(), result.block.hash()],
      ] as [string, bigint | Uint8Array, bigint | Uint8Array][]
    ).find(([, a, b]) => (typeof a === 'bigint' ? a !== b : !equalsBytes(a, b as Uint8Array)));
    if (mismatch !== undefined) {
      await head.discardBuild();
      const show = (v: bigint | Uint8Array) => (typeof v === 'bigint' ? v.toString() : bytesToHex(v));
      const [field, expected, computed] = mismatch;
      const why = result.dropped[0] === undefined ? '' : ` (${ethereumjsReason(result.dropped[0].error)})`;
      throw new ImportError(
        `block ${number}: ${field} is ${show(expected)} in the block, ${show(computed)} when run${why}`,
      );
    }
    await head.commitBlock(block, result.receipts, candidates, []);
    await head.dropStale();
    head.events.emit('block', block, result.receipts);
    return block;
  }

  /**
   * The header rules a block's execution does not check, as geth's consensus engines: time after the
   * parent's; proof-of-work difficulty the canonical one (the seal itself is not checked), none after
   * the merge; the base fee and excess blob gas those the parent gives; gas used within the limit.
   * The gas limit's move from the parent's (1/1024 at most) is not checked: this node's own chains
   * change it at will (evm_setBlockGasLimit), as Anvil's and Hardhat's do.
   */
  private checkHeaderRules(h: BlockHeader, parent: BlockHeader): void {
    const common = this.head.vm.common;
    const expected: [string, bigint, bigint | undefined][] = [];
    if (h.timestamp <= parent.timestamp)
      throw new ImportError(
        `block ${h.number}: timestamp ${h.timestamp} is not after the parent's ${parent.timestamp}`,
      );
    expected.push([
      'difficulty',
      common.consensusType() === ConsensusType.ProofOfWork ? h.ethashCanonicalDifficulty(parent) : 0n,
      h.difficulty,
    ]);
    if (common.isActivatedEIP(1559)) expected.push(['baseFeePerGas', ruleBaseFee(parent), h.baseFeePerGas]);
    if (common.isActivatedEIP(4844))
      expected.push(['excessBlobGas', parent.calcNextExcessBlobGas(common), h.excessBlobGas]);
    for (const [field, want, got] of expected)
      if (got !== want)
        throw new ImportError(`block ${h.number}: ${field} is ${got} in the block, ${want} by the rules`);
    if (h.gasUsed > h.gasLimit)
      throw new ImportError(`block ${h.number}: gasUsed ${h.gasUsed} is above the gas limit ${h.gasLimit}`);
    // The DAO fork's extra data is checked as the block is decoded (ethereumjs's header rules).
  }

  /**
   * A block's ommers, as geth's ethash engine (VerifyUncles) and the yellow paper: at most two, each
   * 1 to 6 blocks back, a child of one of the block's last seven ancestors but neither an ancestor nor
   * a sibling of the block, not included before (by the block itself or those ancestors), and keeping
   * the difficulty and time rules with its parent. Their seals are not checked.
   */
  private async checkOmmers(block: Block): Promise<void> {
    const ommers = block.uncleHeaders;
    if (ommers.length === 0) return;
    const n = block.header.number;
    const fail = (why: string): never => {
      throw new ImportError(`block ${n}: ${why}`);
    };
    if (ommers.length > 2) fail(`${ommers.length} ommers; at most 2`);
    const ancestors = new Map<string, Block>();
    const included = new Set<string>();
    for (let k = n - 1n; k >= 0n && k >= n - 7n; k--) {
      const ancestor = (await this.head.store.getBlock(k)) as Block;
      ancestors.set(bytesToHex(ancestor.hash()), ancestor);
      for (const u of ancestor.uncleHeaders) included.add(bytesToHex(u.hash()));
    }
    for (const ommer of ommers) {
      const hash = bytesToHex(ommer.hash());
      const parent = ancestors.get(bytesToHex(ommer.parentHash));
      if (included.has(hash)) fail(`ommer ${hash} is included twice`);
      if (ancestors.has(hash)) fail(`ommer ${hash} is an ancestor of the block`);
      if (parent === undefined || equalsBytes(ommer.parentHash, block.header.parentHash) || n - ommer.number > 6n)
        return fail(`ommer ${hash} (block ${ommer.number}) is not a child of one of the block's last ancestors`);
      included.add(hash);
      if (ommer.number !== parent.header.number + 1n || ommer.timestamp <= parent.header.timestamp)
        fail(`ommer ${hash}: its number or time does not follow its parent's`);
      const difficulty = ommer.ethashCanonicalDifficulty(parent.header);
      if (ommer.difficulty !== difficulty)
        fail(`ommer ${hash}: difficulty is ${ommer.difficulty}, ${difficulty} by the rules`);
    }
  }
}

/** A block's number, read from its RLP (header field 8) before the block is decoded under a fork. */
function blockNumberOf(values: Uint8Array[]): bigint {
  const header = values[0] as unknown as Uint8Array[];
  const n = header?.[8];
  if (!(n instanceof Uint8Array)) throw new ImportError('not a block: no header number');
  return bytesToBigIntOrZero(n);
}

function bytesToBigIntOrZero(b: Uint8Array | undefined): bigint {
  if (b !== undefined && !(b instanceof Uint8Array)) throw new ImportError('not a block: a header field is a list');
  return b === undefined || b.length === 0 ? 0n : BigInt(bytesToHex(b));
}
