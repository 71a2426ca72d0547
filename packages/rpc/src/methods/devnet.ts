/**
 * Devnet control (chain.dev): what test suites do to the chain that no transaction can, as Anvil and
 * Hardhat name the methods (viem's test client in anvil mode, Hardhat network helpers, ethers). Each
 * `hardhat_` name is an alias of its `anvil_` twin, listed beside it.
 */
import { dirname } from 'node:path';

import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToHex, concatBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { InvalidArgumentError, UnknownAccountError } from '@l2devnet/core';

import { invalidParams } from '../errors';
import { anvilStateBlob, anvilStateJson, anvilStateOfBlob } from '../anvilState';
import { FIRST_RETRY_MS, RemoteNode } from '../remote';
import { hex, quantity } from '../format';
import type { Method, RpcContext } from '../method';
import { method, optional, required, withDefault } from '../method';
import {
  address,
  amount,
  bool,
  callObject,
  data,
  fail,
  finality,
  gasLimit,
  hash,
  nonce,
  quantity as quantityParam,
  timestamp,
  word,
} from '../params';

/** The node clock counts milliseconds in a double: it holds times up to 2^53 ms (about the year 287,000). */
const MAX_CLOCK_MS = BigInt(Number.MAX_SAFE_INTEGER);

/** Node time (ms) `seconds` after `from` (ms); refused past the clock's range. */
function clockAfter(seconds: bigint, name: string, from: bigint): number {
  const ms = from + seconds * 1000n;
  if (ms > MAX_CLOCK_MS)
    throw invalidParams(`param 1 (${name}) must keep node time below 2^53 ms (the clock's range); got ${seconds}`);
  return Number(ms);
}

/** The clock's offset from the wall clock, in whole seconds (never negative), as Anvil answers it: a JSON number. */
const offsetSeconds = (offsetMs: number) => Math.max(0, Math.round(offsetMs / 1000));

/** A transaction to put into a reorganised block: raw signed bytes or a request from a dev/impersonated account. */
async function reorgTx(
  ctx: RpcContext,
  value: unknown,
  position: number,
  nextNonce: (from: Uint8Array) => Promise<bigint>,
): Promise<{ tx: TypedTransaction; sender: Uint8Array }> {
  const slot = { position: 2, name: `transactions[${position}][0]` };
  const { txs } = ctx.chain;
  if (typeof value === 'string') {
    const tx = txs.decodeTransaction(data(value, slot));
    return { tx, sender: txs.recoverSender(tx) };
  }
  const req = callObject({ requireFrom: true })(value, slot);
  const from = req.from as Uint8Array;
  const unsigned = createFeeMarket1559Tx(
    {
      nonce: req.nonce ?? (await nextNonce(from)),
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
      gasLimit: req.gas ?? 1_000_000n,
      maxFeePerGas: req.maxFeePerGas ?? 100_000_000_000n,
      maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 1_000_000_000n,
    },
    { common: ctx.chain.common },
  );
  const tx = txs.signAs(unsigned, from);
  if (tx === undefined) throw new UnknownAccountError(from);
  return { tx, sender: from };
}

const setBalance = method(
  [required('address', address), required('balance', quantityParam)],
  async ({ chain }, a, balance) => {
    await chain.dev.setAccount(a, { balance });
    return null;
  },
);
const setCode = method([required('address', address), required('code', data)], async ({ chain }, a, code) => {
  await chain.dev.setCode(a, code);
  return null;
});
const setNonce = method([required('address', address), required('nonce', nonce)], async ({ chain }, a, n) => {
  await chain.dev.setAccount(a, { nonce: n });
  return null;
});
const setStorageAt = method(
  [required('address', address), required('slot', word), required('value', word)],
  async ({ chain }, a, slot, value) => {
    await chain.dev.setStorageAt(a, slot, value);
    return true;
  },
);
const impersonateAccount = method([required('address', address)], ({ chain }, a) => {
  chain.dev.impersonate(a);
  return null;
});
const stopImpersonatingAccount = method([required('address', address)], ({ chain }, a) => {
  chain.dev.stopImpersonating(a);
  return null;
});
const setCoinbase = method([required('address', address)], async ({ chain }, a) => {
  await chain.dev.setCoinbase(a);
  return null;
});
const setNextBlockBaseFeePerGas = method([required('baseFee', quantityParam)], async ({ chain }, fee) => {
  await chain.dev.setNextBlockBaseFee(fee);
  return null;
});
const setMinGasPrice = method([required('gasPrice', quantityParam)], async ({ chain }, price) => {
  await chain.dev.setMinGasPrice(price);
  return null;
});
const dropTransaction = method([required('transactionHash', hash)], async ({ chain }, h) =>
  (await chain.dev.dropTransaction(h)) ? hex(h) : null,
);
const setBlockGasLimit = method([required('gasLimit', gasLimit)], async ({ chain }, limit) => {
  if (limit < 21_000n) throw invalidParams(`param 1 (gasLimit) must be at least 21000; got ${limit}`);
  await chain.dev.setBlockGasLimit(limit);
  return true;
});
/** evm_increaseTime: moves the node clock forward; returns the total offset in seconds. */
const increaseTime = method([required('seconds', amount)], async ({ chain }, seconds) =>
  offsetSeconds(await chain.dev.setTime(clockAfter(seconds, 'seconds', BigInt(chain.clock.now())))),
);
const setNextBlockTimestamp = method([required('timestamp', timestamp)], async ({ chain }, ts) => {
  await chain.dev.setNextBlockTimestamp(ts);
  return null;
});
/**
 * anvil_setTime: sets the node clock to `timestamp` (seconds; milliseconds past 10^12, as Anvil
 * reads it); answers how many seconds it moved the clock forward (0 back in time), as Anvil does.
 */
const setTime = method([required('timestamp', amount)], async ({ chain }, ts) => {
  const before = chain.clock.now();
  const ms = ts > MILLISECONDS_FROM ? ts : ts * 1000n;
  if (ms > MAX_CLOCK_MS)
    throw invalidParams(`param 1 (timestamp) must keep node time below 2^53 ms (the clock's range); got ${ts}`);
  await chain.dev.setTime(Number(ms));
  return Math.max(0, Math.round((Number(ms) - before) / 1000));
});
/** Anvil takes a time above this as milliseconds (anvil's api.rs evm_set_time). */
const MILLISECONDS_FROM = 10n ** 12n;
const snapshot = method([], async ({ chain }) => quantity(await chain.dev.snapshot()));
const revert = method([required('snapshotId', quantityParam)], ({ chain }, id) => chain.dev.revertTo(id));
/**
 * anvil_dumpState(preserveHistoricalStates?): the head state as Anvil dumps it (hex of gzipped JSON,
 * anvilState.ts), which Anvil's anvil_loadState takes; where an account's or slot's preimage is not
 * known (a state merged from this node's own blob), this node's blob by hashed keys, which alone is
 * whole then. The chain keeps every state: none is historical here.
 */
const dumpState = method([optional('preserveHistoricalStates', bool)], async ({ chain }, _historical) => {
  const listed = await chain.dev.listState();
  if (listed === undefined) return hex(await chain.dev.dumpState());
  return hex(anvilStateBlob(anvilStateJson(listed.accounts, listed.head)));
});
/** anvil_loadState: merges a dump into the head state, as Anvil does: Anvil's (gzipped JSON, or JSON) or this node's blob. */
const loadState = method([required('state', data)], async ({ chain }, blob) => {
  let accounts;
  try {
    accounts = anvilStateOfBlob(blob);
  } catch (e) {
    throw invalidParams(`param 1 (state) is not an Anvil state dump: ${(e as Error).message}`);
  }
  if (accounts === undefined) await chain.dev.loadState(blob);
  else await chain.dev.loadAccounts(accounts);
  return true;
});
/**
 * anvil_reset (hardhat_reset): without `forking`, back to the chain as it started (genesis, or a
 * forked chain's fork block, with the state it started with). With `{ forking: { jsonRpcUrl,
 * blockNumber } }`, as Hardhat and Anvil: the chain starts again as a fork of that remote at that
 * block (default its latest; the remote this node forks when no URL is given), in memory, with the
 * node's options. A dev chain given only a block number is reset (viem's reset() sends one).
 */
const reset = method([optional('options', (v) => v)], async ({ chain }, options) => {
  const forking = (options as { forking?: unknown } | null | undefined)?.forking;
  const plain = async () => {
    await chain.dev.reset();
    return null;
  };
  if (forking === undefined || forking === null) return plain();
  if (typeof forking !== 'object') throw invalidParams('param 1 (options): forking must be an object');
  const { jsonRpcUrl, blockNumber } = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown };
  if (jsonRpcUrl !== undefined && jsonRpcUrl !== null && typeof jsonRpcUrl !== 'string')
    throw invalidParams('param 1 (options): forking.jsonRpcUrl must be a URL');
  let block: bigint | undefined;
  if (blockNumber !== undefined && blockNumber !== null) {
    if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(String(blockNumber)))
      throw invalidParams('param 1 (options): forking.blockNumber must be a block number');
    block = BigInt(blockNumber as string);
  }
  const fork = chain.fork;
  const current = fork?.source instanceof RemoteNode ? fork.source : undefined;
  const url = jsonRpcUrl ?? current?.url ?? chain.dev.rpcUrl;
  if (url === undefined) return plain();
  if (fork !== undefined && url === current?.url && (block ?? (await current.blockNumber())) === fork.number)
    return plain();
  let source: RemoteNode;
  try {
    source = url === current?.url ? current : (current?.sibling(url) ?? new RemoteNode(url));
  } catch (e) {
    throw invalidParams(`param 1 (options): ${(e as Error).message}`);
  }
  const file = fork?.cache.file;
  await chain.refork({ source, blockNumber: block, cacheDir: file === undefined ? undefined : dirname(file) });
  return null;
});
/**
 * anvil_setRpcUrl(url): a forked chain reads its remote state from `url` from now on (the same chain:
 * every answer is still proven against the fork block's root); on another chain, the remote
 * anvil_reset forks when it names none. Null, as Anvil.
 */
const setRpcUrl = method(
  [required('url', (v, slot) => (typeof v === 'string' ? v : fail(slot, 'a URL', v)))],
  ({ chain }, url) => {
    const current = chain.fork?.source instanceof RemoteNode ? chain.fork.source : undefined;
    let remote: RemoteNode;
    try {
      remote = current?.sibling(url) ?? new RemoteNode(url);
    } catch (e) {
      throw invalidParams(`param 1 (url): ${(e as Error).message}`);
    }
    chain.dev.setRpcUrl(url, remote);
    return null;
  },
);

/** anvil_metadata, as Anvil answers it: the snapshots by id with the block each was taken at. */
const metadata = method([], async ({ chain, clientVersion }) => {
  const head = await chain.reads.headBlock();
  const fork = chain.fork;
  const snapshots: Record<string, [number, string]> = {};
  for (const [id, number] of chain.dev.snapshotHeads()) {
    const block = await chain.reads.getBlockByNumber(number);
    if (block !== undefined) snapshots[quantity(id)] = [Number(number), hex(block.hash())];
  }
  return {
    clientVersion,
    clientSemver: CLIENT_SEMVER,
    clientCommitSha: CLIENT_COMMIT_SHA,
    chainId: Number(chain.chainId),
    instanceId: hex(chain.dev.instanceId),
    latestBlockNumber: Number(head.header.number),
    latestBlockHash: hex(head.hash()),
    forkedNetwork:
      fork === undefined
        ? null
        : { chainId: Number(chain.chainId), forkBlockNumber: Number(fork.number), forkBlockHash: hex(fork.hash) },
    snapshots,
  };
});

/** The release, as anvil_metadata's clientSemver. */
const CLIENT_SEMVER = '0.1.0';
/** The commit the bundle was built from (scripts/bundle.js defines it; empty when run from source). */
const CLIENT_COMMIT_SHA = process.env.L2DEVNET_COMMIT_SHA ?? '';

/** Anvil's names of the hardforks (alloy's EthereumHardfork), as anvil_nodeInfo gives them. */
const ANVIL_HARDFORK_NAMES: Record<string, string> = {
  chainstart: 'Frontier',
  dao: 'Dao',
  tangerineWhistle: 'Tangerine',
  mergeNetsplitBlock: 'Paris',
};
const anvilHardforkName = (name: string) => ANVIL_HARDFORK_NAMES[name] ?? `${name[0].toUpperCase()}${name.slice(1)}`;

/**
 * anvil_dealERC20 / anvil_setERC20Allowance, as Anvil finds the slot (api.rs find_erc20_storage_slot):
 * the token slots the view call reads (its access list), each tried with the value as a state
 * override until the call returns the value; that slot is then set.
 */
async function setErc20Slot(ctx: RpcContext, token: Uint8Array, calldata: Uint8Array, value: Uint8Array, what: string) {
  const { chain } = ctx;
  const req = { to: token, data: calldata };
  const { accessList } = await chain.calls.createAccessList(req, chain.headNumber);
  for (const [address, slots] of accessList) {
    if (!equalsBytes(address, token)) continue;
    for (const slot of slots) {
      let answer: Uint8Array;
      try {
        const overrides = [{ address: token, stateDiff: [[slot, value]] as [Uint8Array, Uint8Array][] }];
        answer = (await chain.calls.call(req, chain.headNumber, { overrides })).returnValue;
      } catch {
        continue;
      }
      if (answer.length === 32 && equalsBytes(answer, value)) {
        await chain.dev.setStorageAt(token, slot, value);
        return null;
      }
    }
  }
  throw new InvalidArgumentError(`Unable to set ERC20 ${what}, no slot found`);
}

const word32 = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
/** balanceOf(address) and allowance(address,address) calldata. */
const BALANCE_OF = hexToBytes('0x70a08231');
const ALLOWANCE = hexToBytes('0xdd62ed3e');
const dealErc20 = method(
  [required('address', address), required('token', address), required('balance', quantityParam)],
  (ctx, who, token, balance) =>
    setErc20Slot(ctx, token, concatBytes(BALANCE_OF, setLengthLeft(who, 32)), word32(balance), 'balance'),
);
const setErc20Allowance = method(
  [
    required('owner', address),
    required('spender', address),
    required('token', address),
    required('amount', quantityParam),
  ],
  (ctx, owner, spender, token, amount) =>
    setErc20Slot(
      ctx,
      token,
      concatBytes(ALLOWANCE, setLengthLeft(owner, 32), setLengthLeft(spender, 32)),
      word32(amount),
      'allowance',
    ),
);

/** anvil_dropAllTransactions: empties the pool. */
const dropAllTransactions = method([], async ({ chain }) => {
  await chain.dev.dropTransactions();
  return null;
});
/** anvil_autoImpersonateAccount(enabled): eth_sendTransaction may send from any address. */
const autoImpersonateAccount = method([required('enabled', bool)], ({ chain }, on) => {
  chain.dev.setAutoImpersonate(on);
  return null;
});
const addBalance = method(
  [required('address', address), required('balance', quantityParam)],
  async ({ chain }, a, amount) => {
    await chain.dev.addBalance(a, amount);
    return null;
  },
);
/** anvil_setLoggingEnabled(enabled): whether the node prints what it mines and serves (-v, notices). */
const setLoggingEnabled = method([required('enabled', bool)], ({ chain }, on) => {
  chain.dev.loggingEnabled = on;
  return null;
});

export const devnetMethods: Record<string, Method> = {
  // --- accounts
  'anvil_setBalance': setBalance,
  'hardhat_setBalance': setBalance,
  'anvil_setCode': setCode,
  'hardhat_setCode': setCode,
  'anvil_setNonce': setNonce,
  'hardhat_setNonce': setNonce,
  'evm_setAccountNonce': setNonce,
  'anvil_setStorageAt': setStorageAt,
  'hardhat_setStorageAt': setStorageAt,
  'anvil_impersonateAccount': impersonateAccount,
  'hardhat_impersonateAccount': impersonateAccount,
  'anvil_stopImpersonatingAccount': stopImpersonatingAccount,
  'hardhat_stopImpersonatingAccount': stopImpersonatingAccount,

  // --- the next block and the pool
  'anvil_setCoinbase': setCoinbase,
  'hardhat_setCoinbase': setCoinbase,
  'anvil_setNextBlockBaseFeePerGas': setNextBlockBaseFeePerGas,
  'hardhat_setNextBlockBaseFeePerGas': setNextBlockBaseFeePerGas,
  'anvil_setMinGasPrice': setMinGasPrice,
  'hardhat_setMinGasPrice': setMinGasPrice,
  'anvil_dropTransaction': dropTransaction,
  'hardhat_dropTransaction': dropTransaction,
  'evm_setBlockGasLimit': setBlockGasLimit,
  'anvil_setBlockGasLimit': setBlockGasLimit,
  'anvil_dropAllTransactions': dropAllTransactions,
  'hardhat_dropAllTransactions': dropAllTransactions,
  /** anvil_removePoolTransactions(address): drops every pool transaction that address sent. */
  'anvil_removePoolTransactions': method([required('address', address)], async ({ chain }, a) => {
    await chain.dev.dropTransactions(a);
    return null;
  }),
  'anvil_autoImpersonateAccount': autoImpersonateAccount,
  'hardhat_autoImpersonateAccount': autoImpersonateAccount,
  'anvil_addBalance': addBalance,
  'hardhat_addBalance': addBalance,
  'tenderly_addBalance': addBalance,
  'tenderly_setBalance': setBalance,
  'anvil_dealERC20': dealErc20,
  'anvil_setERC20Balance': dealErc20,
  'hardhat_dealERC20': dealErc20,
  'anvil_setERC20Allowance': setErc20Allowance,

  // --- time
  'evm_increaseTime': increaseTime,
  'anvil_increaseTime': increaseTime,
  'evm_setNextBlockTimestamp': setNextBlockTimestamp,
  'anvil_setNextBlockTimestamp': setNextBlockTimestamp,
  'anvil_setTime': setTime,
  'evm_setTime': setTime,
  /** anvil_setBlockTimestampInterval(seconds): each next block that many seconds after its parent. */
  'anvil_setBlockTimestampInterval': method([required('seconds', amount)], async ({ chain }, seconds) => {
    await chain.dev.setTimestampInterval(seconds);
    return null;
  }),
  /** anvil_removeBlockTimestampInterval: back to the clock; true if an interval was set, as Anvil. */
  'anvil_removeBlockTimestampInterval': method([], async ({ chain }) => {
    const had = chain.dev.timestampInterval !== undefined;
    await chain.dev.setTimestampInterval(undefined);
    return had;
  }),

  // --- snapshots
  'evm_snapshot': snapshot,
  'anvil_snapshot': snapshot,
  'evm_revert': revert,
  'anvil_revert': revert,

  // --- chain
  /** anvil_rollback: drops the last `depth` blocks (default 1). */
  'anvil_rollback': method([withDefault('depth', amount, () => 1n)], async ({ chain }, depth) => {
    await chain.dev.rollback(depth);
    return null;
  }),
  /**
   * l2_setFinality({ safe, finalized }): the blocks `safe` and `finalized` stand for from now on
   * (finalized ≤ safe ≤ head), as a following node hears them from its consensus client; null goes
   * back to depths behind the head. An import sets both to its tip.
   */
  'l2_setFinality': method([required('finality', finality)], async ({ chain }, f) => {
    await chain.dev.setFinality(f ?? undefined);
    return true;
  }),
  /** anvil_reorg(depth, [[transaction, blockOffset], ...]): replaces the last `depth` blocks. */
  'anvil_reorg': method(
    [
      required('depth', amount),
      withDefault(
        'transactions',
        (v, slot) => (Array.isArray(v) ? v : fail(slot, 'an array', v)),
        () => [],
      ),
    ],
    async (ctx, depth, list) => {
      const txs = [];
      // Request-form transactions without a nonce take their sender's next one on the new branch.
      const base = ctx.chain.headNumber - depth;
      const used = new Map<string, bigint>();
      const nextNonce = async (from: Uint8Array) => {
        const k = bytesToHex(from);
        const n = used.get(k) ?? (base >= 0n ? (await ctx.chain.reads.getAccount(from, base)).nonce : 0n);
        used.set(k, n + 1n);
        return n;
      };
      for (const [i, entry] of (list as unknown[]).entries()) {
        if (!Array.isArray(entry) || entry.length !== 2)
          fail({ position: 2, name: `transactions[${i}]` }, '[transaction, blockOffset]', entry);
        const [raw, offset] = entry as [unknown, unknown];
        const block = Number(amount(offset, { position: 2, name: `transactions[${i}][1]` }));
        if (BigInt(block) >= depth)
          throw new InvalidArgumentError(`transactions[${i}] goes into block ${block} of a ${depth}-block reorg`);
        txs.push({ ...(await reorgTx(ctx, raw, i, nextNonce)), block });
      }
      await ctx.chain.dev.reorg(depth, txs);
      return null;
    },
  ),

  'anvil_reset': reset,
  'hardhat_reset': reset,
  'anvil_setRpcUrl': setRpcUrl,
  /**
   * anvil_setChainId(chainId): the chain's id from now on (viem's setChainId); null, as Anvil. Refused
   * once the chain holds a transaction, which is signed for the id it was sent with.
   */
  'anvil_setChainId': method([required('chainId', amount)], async ({ chain }, id) => {
    if (id === 0n || id >= 1n << 64n) throw invalidParams(`param 1 (chainId) must be from 1 to 2^64 - 1; got ${id}`);
    await chain.dev.setChainId(id);
    return null;
  }),

  // --- state
  'anvil_dumpState': dumpState,
  'hardhat_dumpState': dumpState,
  'anvil_loadState': loadState,
  'hardhat_loadState': loadState,

  // --- output
  'anvil_setLoggingEnabled': setLoggingEnabled,
  'hardhat_setLoggingEnabled': setLoggingEnabled,
  /** anvil_getGenesisTime: the genesis block's timestamp, seconds. */
  'anvil_getGenesisTime': method([], async ({ chain }) =>
    Number((await chain.reads.getBlockByNumber(chain.reads.firstNumber))?.header.timestamp ?? 0n),
  ),

  // --- inspection
  'anvil_metadata': metadata,
  'hardhat_metadata': metadata,
  /** anvil_nodeInfo: Anvil's fields and types (its hardfork names, the chain id a number, the gas price eth_gasPrice's). */
  'anvil_nodeInfo': method([], async ({ chain }) => {
    const head = await chain.reads.headBlock();
    const baseFee = await chain.reads.nextBaseFee();
    const fork = chain.fork;
    return {
      currentBlockNumber: quantity(chain.headNumber),
      currentBlockTimestamp: Number(head.header.timestamp),
      currentBlockHash: hex(head.hash()),
      hardFork: anvilHardforkName(chain.hardfork),
      transactionOrder: chain.reads.poolOrder,
      environment: {
        baseFee: quantity(baseFee),
        chainId: Number(chain.chainId),
        gasLimit: quantity(chain.gasLimit),
        gasPrice: quantity(baseFee + chain.reads.suggestedTip()),
      },
      forkConfig: {
        forkUrl: fork?.source instanceof RemoteNode ? fork.source.url : null,
        forkBlockNumber: fork === undefined ? null : Number(fork.number),
        forkRetryBackoff: fork === undefined ? null : FIRST_RETRY_MS,
      },
    };
  }),
};
