/**
 * `l2devnet proof verify`: checks an eth_getProof answer, from this node or any other, against a
 * state root (core's verifyAccountProof), and prints which node of which proof failed and why; with
 * `--linea`, a linea_getProof answer against Linea's state root (core's verifyLineaProof).
 *
 *   l2devnet proof verify FILE --state-root ROOT     an answer saved as JSON (the result, or the whole response)
 *   l2devnet proof verify --rpc URL --address A [--slot S ...] [--block B]   asks a node for both
 */
import { readFileSync } from 'node:fs';

import { bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { verifyAccountProof, verifyLineaProof } from '@l2devnet/core';
import type { AccountProof, LineaAccountProof, LineaKeyProof, LineaLeafProof } from '@l2devnet/core';

import { FlagError, parseCommandArgs } from './flags';
import { rpc } from './rpcClient';

export const PROOF_HELP = `Usage: l2devnet proof verify FILE --state-root ROOT
       l2devnet proof verify --rpc URL --address ADDRESS [--slot SLOT ...] [--block BLOCK]

Checks an eth_getProof answer against a state root: the account proof, the account's fields, and
every storage proof, absences included. FILE holds the answer as JSON (its result, or the whole
JSON-RPC response); with --rpc the answer and the block's stateRoot come from that node (any node).
With --linea, a linea_getProof answer (Linea's sparse-Merkle proofs) against Linea's state root, the
one LineaRollup.stateRootHashes holds on the L1: give it with --state-root, or with --rpc to an
l2devnet node it is taken from l2_verifyProof.
Exits 0 when the proof holds, 1 with one line per failure when it does not.

  --linea                   a linea_getProof answer, against Linea's state root
  --state-root ROOT         the state root to check FILE against (with --rpc and --linea: instead of the node's)
  --rpc URL                 a JSON-RPC endpoint to ask
  --address ADDRESS         the account to prove (with --rpc)
  --slot SLOT               a storage slot to prove (with --rpc; repeatable)
  --block BLOCK             block number or tag (with --rpc; default latest)
`;

type Json = Record<string, unknown>;

const bytes = (value: unknown, what: string): Uint8Array => {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new FlagError(`proof: ${what} must be hex data; got ${JSON.stringify(value)}`);
  return hexToBytes(value as `0x${string}`);
};
const quantity = (value: unknown, what: string): bigint => {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
    throw new FlagError(`proof: ${what} must be a hex quantity; got ${JSON.stringify(value)}`);
  return BigInt(value);
};
const list = (value: unknown, what: string): unknown[] => {
  if (!Array.isArray(value)) throw new FlagError(`proof: ${what} must be an array`);
  return value;
};

/** A storage key as its 32-byte word (nodes echo keys as given, often as quantities). */
function slotWord(n: bigint, i: number): Uint8Array {
  if (n >= 1n << 256n) throw new FlagError(`proof: storageProof[${i}].key is longer than 32 bytes`);
  return setLengthLeft(bigIntToBytes(n), 32);
}

/** An eth_getProof answer as JSON, typed. */
export function parseProof(json: unknown): AccountProof {
  const o = (typeof json === 'object' && json !== null && 'result' in json ? (json as Json).result : json) as Json;
  if (typeof o !== 'object' || o === null) throw new FlagError('proof: expected an eth_getProof answer (an object)');
  return {
    address: bytes(o.address, 'address'),
    balance: quantity(o.balance, 'balance'),
    nonce: quantity(o.nonce, 'nonce'),
    codeHash: bytes(o.codeHash, 'codeHash'),
    storageHash: bytes(o.storageHash, 'storageHash'),
    accountProof: list(o.accountProof, 'accountProof').map((n, i) => bytes(n, `accountProof[${i}]`)),
    storageProof: list(o.storageProof ?? [], 'storageProof').map((s, i) => {
      const entry = s as Json;
      return {
        key: slotWord(quantity(entry.key, `storageProof[${i}].key`), i),
        value: quantity(entry.value, `storageProof[${i}].value`),
        proof: list(entry.proof, `storageProof[${i}].proof`).map((n, j) => bytes(n, `storageProof[${i}].proof[${j}]`)),
      };
    }),
  };
}

/** A leaf proof of a linea_getProof answer, typed. */
function lineaLeaf(o: Json, what: string): LineaLeafProof {
  if (typeof o !== 'object' || o === null) throw new FlagError(`proof: ${what} must be an object`);
  return {
    value: bytes(o.value, `${what}.value`),
    proofRelatedNodes: list(o.proofRelatedNodes, `${what}.proofRelatedNodes`).map((n, i) =>
      bytes(n, `${what}.proofRelatedNodes[${i}]`),
    ),
  };
}

function leafIndex(value: unknown, what: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw new FlagError(`proof: ${what} must be a leaf index; got ${JSON.stringify(value)}`);
  return value as number;
}

/** A key's proof of a linea_getProof answer (its leaf, or its two neighbours), typed. */
function lineaKey(o: Json, what: string): LineaKeyProof {
  if (typeof o !== 'object' || o === null) throw new FlagError(`proof: ${what} must be an object`);
  const key = bytes(o.key, `${what}.key`);
  if ('leafIndex' in o)
    return {
      key,
      leafIndex: leafIndex(o.leafIndex, `${what}.leafIndex`),
      proof: lineaLeaf(o.proof as Json, `${what}.proof`),
    };
  return {
    key,
    leftLeafIndex: leafIndex(o.leftLeafIndex, `${what}.leftLeafIndex`),
    leftProof: lineaLeaf(o.leftProof as Json, `${what}.leftProof`),
    rightLeafIndex: leafIndex(o.rightLeafIndex, `${what}.rightLeafIndex`),
    rightProof: lineaLeaf(o.rightProof as Json, `${what}.rightProof`),
  };
}

/** A linea_getProof answer as JSON, typed. */
export function parseLineaProof(json: unknown): LineaAccountProof {
  const o = (typeof json === 'object' && json !== null && 'result' in json ? (json as Json).result : json) as Json;
  if (typeof o !== 'object' || o === null) throw new FlagError('proof: expected a linea_getProof answer (an object)');
  return {
    accountProof: lineaKey(o.accountProof as Json, 'accountProof'),
    storageProofs: list(o.storageProofs ?? [], 'storageProofs').map((s, i) =>
      lineaKey(s as Json, `storageProofs[${i}]`),
    ),
  };
}

/** The `proof` subcommand; returns the exit code. */
export async function proofCommand(argv: string[], out: (text: string) => void): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    'state-root': { type: 'string' },
    rpc: { type: 'string' },
    address: { type: 'string' },
    slot: { type: 'string', multiple: true },
    block: { type: 'string' },
    linea: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true || positionals[0] !== 'verify') {
    out(PROOF_HELP);
    return values.help === true ? 0 : 2;
  }
  if (values.linea === true) return lineaCommand(values, positionals, out);
  let proof: AccountProof;
  let root: Uint8Array;
  const url = values.rpc as string | undefined;
  if (url !== undefined) {
    if (values.address === undefined) throw new FlagError('proof verify --rpc needs --address');
    const block = (values.block as string | undefined) ?? 'latest';
    const slots = (values.slot as string[] | undefined) ?? [];
    proof = parseProof(await rpc(url, 'eth_getProof', [values.address, slots, block]));
    const header = (await rpc(url, 'eth_getBlockByNumber', [block, false])) as Json | null;
    if (header === null) throw new FlagError(`--rpc ${url}: no block ${block}`);
    root = bytes(header.stateRoot, 'the block stateRoot');
  } else {
    const file = positionals[1];
    const stateRoot = values['state-root'] as string | undefined;
    if (file === undefined || stateRoot === undefined)
      throw new FlagError('proof verify needs FILE and --state-root, or --rpc and --address');
    proof = parseProof(readJson(file));
    root = bytes(stateRoot, '--state-root');
  }
  const report = verifyAccountProof(proof, root);
  return verdict(out, 'proof', root, proof.address, report, proof.storageProof.length);
}

/**
 * A verifier's report as the command prints it: one line when `what` holds, else one line per
 * failure; the exit code.
 */
function verdict(
  out: (text: string) => void,
  what: string,
  root: Uint8Array,
  account: Uint8Array,
  report: { ok: boolean; accountExists: boolean; failures: string[] },
  slots: number,
): number {
  const who = `account ${bytesToHex(account)}`;
  if (report.ok) {
    out(
      `${what} holds against ${bytesToHex(root)}: ${who} ${report.accountExists ? 'exists' : 'is absent'}, ` +
        `${slots} storage proof(s) hold\n`,
    );
    return 0;
  }
  out(
    `${what} does not hold against ${bytesToHex(root)} (${who}):\n${report.failures.map((f) => `  ${f}\n`).join('')}`,
  );
  return 1;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new FlagError(`proof verify ${file}: ${(e as Error).message}`);
  }
}

/** `proof verify --linea`: a linea_getProof answer against Linea's state root. */
async function lineaCommand(values: Json, positionals: string[], out: (text: string) => void): Promise<number> {
  let proof: LineaAccountProof;
  let root: Uint8Array;
  const url = values.rpc as string | undefined;
  const stateRoot = values['state-root'] as string | undefined;
  if (url !== undefined) {
    if (values.address === undefined) throw new FlagError('proof verify --rpc needs --address');
    const block = (values.block as string | undefined) ?? 'latest';
    const slots = (values.slot as string[] | undefined) ?? [];
    proof = parseLineaProof(await rpc(url, 'linea_getProof', [values.address, slots, block]));
    if (stateRoot !== undefined) root = bytes(stateRoot, '--state-root');
    else {
      const verdict = (await rpc(url, 'l2_verifyProof', [values.address, [], block])) as Json;
      const linea = verdict.linea as Json | undefined;
      if (linea?.stateRoot === undefined)
        throw new FlagError(`--rpc ${url}: no Linea state root for block ${block}; give it with --state-root`);
      root = bytes(linea.stateRoot, 'the Linea state root');
    }
  } else {
    const file = positionals[1];
    if (file === undefined || stateRoot === undefined)
      throw new FlagError('proof verify --linea needs FILE and --state-root, or --rpc and --address');
    proof = parseLineaProof(readJson(file));
    root = bytes(stateRoot, '--state-root');
  }
  const report = verifyLineaProof(proof, root);
  return verdict(out, 'Linea proof', root, proof.accountProof.key, report, proof.storageProofs.length);
}
