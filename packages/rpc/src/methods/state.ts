/** Account state at a block: balance, code, nonce, storage, proofs. */
import { bytesToBigInt } from '@ethereumjs/util';
import { StateProofUnavailableError, verifyAccountProof, verifyLineaProof } from '@l2devnet/core';
import type { Chain } from '@l2devnet/core';

import { formatProof, hex, quantity } from '../format';
import type { Method } from '../method';
import { method, required, serviceRequired, withDefault } from '../method';
import { address, arrayOf, proofKey, storageKey, storageRequests } from '../params';
import { CLIENT_LIMIT_EXCEEDED, INVALID_PARAMS, RpcError } from '../errors';
import { latest, stateBlock, stateRef } from './resolve';

/** geth: at most 1,024 slots in one eth_getStorageValues request. */
const MAX_STORAGE_VALUES = 1_024;

/** linea_getProof's answer at block `n` checked against Linea's state root, or why there is none. */
async function lineaVerdict(chain: Chain, a: Uint8Array, keys: Uint8Array[], n: bigint) {
  try {
    const [proof, root] = await Promise.all([chain.reads.lineaProof(a, keys, n), chain.reads.lineaStateRoot(n)]);
    const report = verifyLineaProof(proof, root);
    return { stateRoot: hex(root), ok: report.ok, accountExists: report.accountExists, failures: report.failures };
  } catch (e) {
    if (e instanceof StateProofUnavailableError) return { unavailable: e.message };
    throw e;
  }
}

export const stateMethods: Record<string, Method> = {
  'eth_getBalance': method(
    [required('address', address), withDefault('block', stateRef, latest)],
    async (ctx, a, ref) => quantity((await ctx.chain.reads.getAccount(a, await stateBlock(ctx, ref))).balance),
  ),
  'eth_getCode': method([required('address', address), withDefault('block', stateRef, latest)], async (ctx, a, ref) =>
    hex(await ctx.chain.reads.getCode(a, await stateBlock(ctx, ref))),
  ),
  /** eth_getAccount (geth's, Anvil's): the account's nonce, balance, storage root and code hash at a block. */
  'eth_getAccount': method(
    [required('address', address), withDefault('block', stateRef, latest)],
    async (ctx, a, ref) => {
      const account = await ctx.chain.reads.getAccount(a, await stateBlock(ctx, ref));
      return {
        codeHash: hex(account.codeHash),
        storageRoot: hex(account.storageRoot),
        balance: quantity(account.balance),
        nonce: quantity(account.nonce),
      };
    },
  ),
  /** eth_getAccountInfo (Anvil's): the account's balance, nonce and code at a block. */
  'eth_getAccountInfo': method(
    [required('address', address), withDefault('block', stateRef, latest)],
    async (ctx, a, ref) => {
      const n = await stateBlock(ctx, ref);
      const account = await ctx.chain.reads.getAccount(a, n);
      return {
        balance: quantity(account.balance),
        nonce: quantity(account.nonce),
        code: hex(await ctx.chain.reads.getCode(a, n)),
      };
    },
  ),
  /** eth_getTransactionCount: with `pending`, counts the pool's ready transactions too. */
  'eth_getTransactionCount': method(
    [required('address', address), withDefault('block', stateRef, latest)],
    async (ctx, a, ref) => {
      if (ref.kind === 'pending') return quantity(await ctx.chain.reads.pendingNonce(a));
      return quantity((await ctx.chain.reads.getAccount(a, await stateBlock(ctx, ref))).nonce);
    },
  ),
  /** eth_getStorageAt (spec: eth_getStorageAt): all three params required; `safe` unsupported. */
  'eth_getStorageAt': method(
    [required('address', address), required('position', storageKey), serviceRequired('block', stateRef, latest)],
    async (ctx, a, position, ref) => {
      const value = await ctx.chain.reads.getStorage(a, position, await stateBlock(ctx, ref));
      return `0x${bytesToBigInt(value).toString(16).padStart(64, '0')}`;
    },
  ),
  /**
   * eth_getStorageValues (geth): `{ address: [slot, ...] }` → `{ address: [value, ...] }`, 32-byte
   * words, at most 1,024 slots in all (geth's limit, refused with its -38026).
   */
  'eth_getStorageValues': method(
    [required('requests', storageRequests), withDefault('block', stateRef, latest)],
    async (ctx, requests, ref) => {
      const slots = requests.reduce((n, [, keys]) => n + keys.length, 0);
      if (slots > MAX_STORAGE_VALUES)
        throw new RpcError(CLIENT_LIMIT_EXCEEDED, `too many slots (max ${MAX_STORAGE_VALUES})`);
      if (slots === 0) throw new RpcError(INVALID_PARAMS, 'empty request');
      const n = await stateBlock(ctx, ref);
      const out: Record<string, string[]> = {};
      for (const [a, keys] of requests) {
        out[hex(a)] = await Promise.all(
          keys.map(
            async (k) =>
              `0x${bytesToBigInt(await ctx.chain.reads.getStorage(a, k, n))
                .toString(16)
                .padStart(64, '0')}`,
          ),
        );
      }
      return out;
    },
  ),
  /** eth_getProof (spec: eth_getProof): account and storage proofs against the block's stateRoot. */
  'eth_getProof': method(
    [
      required('address', address),
      required('storageKeys', arrayOf(proofKey)),
      serviceRequired('block', stateRef, latest),
    ],
    async (ctx, a, keys, ref) => {
      const proof = await ctx.chain.reads.getProof(
        a,
        keys.map((k) => k.key),
        await stateBlock(ctx, ref),
      );
      // Each key as geth echoes it: 32 bytes when given so, else a quantity.
      return formatProof(
        proof,
        keys.map((k) => k.echo),
      );
    },
  ),
  /**
   * l2_verifyProof(address, storageKeys, block?): the eth_getProof answer checked by the node's
   * independent verifier (RLP and keccak only, not the trie that made it) against the block's state
   * root: `{ stateRoot, ok, accountExists, failures }`, for the page's proof view. On the L2, `linea`
   * is the same for linea_getProof's answer against Linea's state root (Poseidon2 only), or
   * `{ unavailable }` saying why there is none.
   */
  'l2_verifyProof': method(
    [required('address', address), required('storageKeys', arrayOf(proofKey)), withDefault('block', stateRef, latest)],
    async (ctx, a, keys, ref) => {
      const n = await stateBlock(ctx, ref);
      const proof = await ctx.chain.reads.getProof(
        a,
        keys.map((k) => k.key),
        n,
      );
      const root = await ctx.chain.reads.stateRootAt(n);
      const report = verifyAccountProof(proof, root);
      const out: Record<string, unknown> = {
        stateRoot: hex(root),
        ok: report.ok,
        accountExists: report.accountExists,
        failures: report.failures,
      };
      if (ctx.layer === 'l2')
        out.linea = await lineaVerdict(
          ctx.chain,
          a,
          keys.map((k) => k.key),
          n,
        );
      return out;
    },
  ),
};
