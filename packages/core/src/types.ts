import type { Block } from '@ethereumjs/block';

/** A log as the EVM emitted it. */
export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** What the chain keeps per included transaction, beside the block that holds it. */
export interface Receipt {
  txHash: Uint8Array;
  type: number;
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  from: Uint8Array;
  to: Uint8Array | undefined;
  contractAddress: Uint8Array | undefined;
  logs: Log[];
  logsBloom: Uint8Array;
  /** Before Byzantium: the state root after the transaction, which the receipt carries instead of a status. */
  root?: Uint8Array;
  /** Blob transactions (EIP-4844): the blob gas used and its price. */
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
}

/** A log with its position in the chain. */
export interface LocatedLog extends Log {
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

export interface TxLocation {
  blockNumber: bigint;
  index: number;
}

/** A block reference as the core understands it; the RPC layer turns tags into these. */
export type BlockRef =
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Uint8Array }
  | { kind: 'latest' | 'earliest' | 'pending' | 'finalized' | 'safe' };

export interface LogFilter {
  fromBlock: bigint;
  toBlock: bigint;
  /** Empty or undefined: any address. */
  addresses?: Uint8Array[];
  /** Per position: null or an empty list is a wildcard; a list is an OR of values. */
  topics?: (Uint8Array[] | null)[];
}

export type { Block };

/** EIP-1186: an account and storage slots with their Merkle proofs against a state root. */
export interface AccountProof {
  address: Uint8Array;
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  accountProof: Uint8Array[];
  storageProof: { key: Uint8Array; value: bigint; proof: Uint8Array[] }[];
}
