import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createBlock, createBlockHeader } from '@ethereumjs/block';
import type { Block } from '@ethereumjs/block';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, createAccessList2930Tx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, concatBytes, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak';
import secp256k1 from 'secp256k1';

import { Chain } from '../src';

export const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');

export interface Artifact {
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

export function artifact(name: string): Artifact {
  return JSON.parse(readFileSync(join(FIXTURES, 'contracts', `${name}.json`), 'utf8')) as Artifact;
}

export const GWEI = 1_000_000_000n;

export interface TxFields {
  nonce?: bigint;
  to?: Uint8Array;
  value?: bigint;
  data?: Uint8Array;
  gasLimit?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
  type?: 0 | 1 | 2;
}

/** A signed transaction from dev account `from` (index). Nonce defaults to the pending nonce. */
export async function signedTx(chain: Chain, from: number, fields: TxFields): Promise<TypedTransaction> {
  const account = chain.accounts[from];
  const nonce = fields.nonce ?? (await chain.reads.pendingNonce(account.address));
  const base = {
    nonce,
    to: fields.to,
    value: fields.value ?? 0n,
    data: fields.data ?? new Uint8Array(),
    gasLimit: fields.gasLimit ?? 1_000_000n,
  };
  const opts = { common: chain.common };
  if (fields.type === 0)
    return createLegacyTx({ ...base, gasPrice: fields.gasPrice ?? 10n * GWEI }, opts).sign(account.privateKey);
  if (fields.type === 1)
    return createAccessList2930Tx({ ...base, gasPrice: fields.gasPrice ?? 10n * GWEI }, opts).sign(account.privateKey);
  return createFeeMarket1559Tx(
    {
      ...base,
      maxFeePerGas: fields.maxFeePerGas ?? 10n * GWEI,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? GWEI,
    },
    opts,
  ).sign(account.privateKey);
}

export async function send(chain: Chain, from: number, fields: TxFields): Promise<Uint8Array> {
  return chain.txs.submit(await signedTx(chain, from, fields));
}

/** Deploys a fixture contract; returns its address. */
export async function deploy(
  chain: Chain,
  name: string,
  from = 0,
  args: Uint8Array = new Uint8Array(),
): Promise<Uint8Array> {
  const code = hexToBytes(artifact(name).bytecode);
  const data = new Uint8Array(code.length + args.length);
  data.set(code);
  data.set(args, code.length);
  const hash = await send(chain, from, { data, gasLimit: 5_000_000n });
  const found = await chain.reads.getReceipt(hash);
  if (found?.receipt.contractAddress === undefined || found.receipt.status !== 1)
    throw new Error(`deploying ${name} failed`);
  return found.receipt.contractAddress;
}

/** ABI-encodes a call of `signature` with uint256/address arguments. */
export function calldata(selector: string, ...args: (bigint | Uint8Array)[]): Uint8Array {
  const out = new Uint8Array(4 + 32 * args.length);
  out.set(hexToBytes(selector as `0x${string}`));
  args.forEach((a, i) => {
    const word = new Uint8Array(32);
    if (typeof a === 'bigint') {
      const hex = a.toString(16).padStart(64, '0');
      word.set(hexToBytes(`0x${hex}`));
    } else word.set(a, 32 - a.length);
    out.set(word, 4 + 32 * i);
  });
  return out;
}

export function word(n: bigint): Uint8Array {
  return hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
}

/**
 * A signed EIP-1559 (or, with `type: 3`, blob) transaction encoded by hand, for payloads ethereumjs
 * refuses to build: another chain id, a tip above the fee cap, a gas limit above the EIP-7825 cap.
 */
export function rawSigned(
  privateKey: Uint8Array,
  f: { type?: 2 | 3; chainId: bigint; nonce?: bigint; tip: bigint; maxFee: bigint; gas: bigint; to: Uint8Array },
): Uint8Array {
  const type = f.type ?? 2;
  const n = bigIntToUnpaddedBytes;
  const body: (Uint8Array | Uint8Array[])[] = [
    n(f.chainId),
    n(f.nonce ?? 0n),
    n(f.tip),
    n(f.maxFee),
    n(f.gas),
    f.to,
    n(0n),
    new Uint8Array(),
    [],
  ];
  if (type === 3) body.push(n(1n), [new Uint8Array(32).fill(1).map((v, i) => (i === 0 ? 1 : v))]);
  const hash = keccak256(new Uint8Array([type, ...RLP.encode(body)]));
  const { signature, recid } = secp256k1.ecdsaSign(hash, privateKey);
  const signed = [
    ...body,
    n(BigInt(recid)),
    n(BigInt(`0x${Buffer.from(signature.subarray(0, 32)).toString('hex')}`)),
    n(BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`)),
  ];
  return new Uint8Array([type, ...RLP.encode(signed)]);
}

/** A geth genesis config's entries that start every fork numbered by block, through London, at genesis. */
export const LONDON_AT_GENESIS = Object.fromEntries(
  ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul']
    .concat(['berlin', 'london'])
    .map((f) => [`${f}Block`, 0]),
);

/**
 * A proof-of-work chain (London from genesis, never merged) whose block 2 carries an ommer (block 1's
 * sibling by another miner, or what `ommerOf` makes of its fields), block 2 made by ethereumjs's own
 * runBlock rather than this node: its
 * genesis file, the blocks' file (genesis, 1, 2), block 2, the ommer, and the two miners.
 */
export async function chainWithOmmer(
  ommerOf?: (first: Block, fields: Record<string, unknown>) => Record<string, unknown>,
) {
  const genesis = {
    config: {
      chainId: 1337,
      ...LONDON_AT_GENESIS,
    },
    difficulty: '0x20000',
    gasLimit: '0x1c9c380',
    timestamp: '0x0',
    nonce: '0x0',
    extraData: '0x',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    alloc: {},
  };
  const miner = createAddressFromString('0x00000000000000000000000000000000000000aa');
  const ommerMiner = createAddressFromString('0x00000000000000000000000000000000000000bb');
  const source = await Chain.create({ genesis, mining: { mode: 'manual' } });
  try {
    const genesisBlock = (await source.reads.getBlockByNumber(0n))!;
    const first = await source.mine();
    const common = createCommonFromGethGenesis(genesis as never, { chain: 'pow' });
    common.setHardfork('london');
    const vm = await createVM({ common });
    await runBlock(vm, { block: first, skipHeaderValidation: true, skipBlockValidation: true });
    const sibling = { ...first.header.toJSON(), coinbase: ommerMiner.toString(), extraData: '0x0b' };
    const ommer = createBlockHeader((ommerOf?.(first, sibling) ?? sibling) as never, { common });
    const fields = {
      parentHash: first.hash(),
      number: 2n,
      timestamp: first.header.timestamp + 12n,
      gasLimit: first.header.gasLimit,
      coinbase: miner,
      baseFeePerGas: first.header.calcNextBaseFee(),
      difficulty: 0n,
    };
    fields.difficulty = createBlockHeader(fields, { common }).ethashCanonicalDifficulty(first.header);
    const uncleHeaders = [ommer.toJSON()] as never;
    const unsealed = createBlock(
      { header: { ...fields, uncleHash: keccak256(RLP.encode([ommer.raw()])) }, uncleHeaders },
      { common },
    );
    const run = await runBlock(vm, {
      block: unsealed,
      generate: true,
      skipHeaderValidation: true,
      skipBlockValidation: true,
    });
    const header = {
      ...unsealed.header.toJSON(),
      stateRoot: run.stateRoot,
      receiptTrie: run.receiptsRoot,
      logsBloom: run.logsBloom,
      gasUsed: run.gasUsed,
    };
    const block = createBlock({ header: header as never, uncleHeaders }, { common });
    const file = concatBytes(genesisBlock.serialize(), first.serialize(), block.serialize());
    return { genesis, file, block, ommer, miner: miner.bytes, ommerMiner: ommerMiner.bytes };
  } finally {
    await source.close();
  }
}
