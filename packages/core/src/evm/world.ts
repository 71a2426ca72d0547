/**
 * The state one run of the engine sees and changes: accounts, storage, code, transient storage, the
 * warm sets (EIP-2929), logs, the refund counter and the self-destructed accounts, over a read-only
 * backend that the run never writes. Every change goes into an undo journal: a checkpoint is the
 * journal's length, and a revert undoes back to it (no copies). Reads that the world holds are
 * synchronous; a miss goes to the backend once (the only await on the hot path).
 */
import { KECCAK256_NULL } from '@ethereumjs/util';

import type { AnalysedCode } from './code';
import { analyse, analysedByHash } from './code';

/** Where a run reads the state it starts from. */
export interface StateBackend {
  /** The account, or undefined when there is none. `hasStorage`: a storage root other than the empty trie's. */
  account(
    address: Uint8Array,
  ): Promise<{ nonce: bigint; balance: bigint; codeHash: Uint8Array; hasStorage: boolean } | undefined>;
  code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array>;
  /** A slot's value, 32 bytes or empty. */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

export class Account {
  /** The account exists (a run may create it, or find it). */
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** Its code, analysed, once read. */
  code: AnalysedCode | undefined;
  /** Storage as the run has it (values read or written); a slot absent here is its original value. */
  readonly storage = new Map<bigint, bigint>();
  /** Values at the start of the run (EIP-2200's original value), as read. */
  readonly original = new Map<bigint, bigint>();
  /** Its storage at the start of the run was not empty (EIP-7610's collision). */
  hadStorage: boolean;
  /** Storage was cleared in this run (a creation over it, a self-destruct): unset slots read 0, not the backend's. */
  cleared = false;
  /** Slots warm in this transaction (EIP-2929). */
  readonly warmSlots = new Set<bigint>();
  /** As the run found it. */
  readonly startExists: boolean;
  readonly startNonce: bigint;
  readonly startBalance: bigint;
  startCodeHash: Uint8Array;

  constructor(
    readonly key: string,
    readonly address: Uint8Array,
    found: { nonce: bigint; balance: bigint; codeHash: Uint8Array; hasStorage: boolean } | undefined,
  ) {
    this.exists = found !== undefined;
    this.nonce = found?.nonce ?? 0n;
    this.balance = found?.balance ?? 0n;
    this.codeHash = found?.codeHash ?? KECCAK256_NULL;
    this.hadStorage = found?.hasStorage ?? false;
    this.startExists = this.exists;
    this.startNonce = this.nonce;
    this.startBalance = this.balance;
    this.startCodeHash = this.codeHash;
  }

  /** EIP-161's empty: no nonce, no balance, no code. */
  get empty(): boolean {
    return this.nonce === 0n && this.balance === 0n && this.codeHash === KECCAK256_NULL_REF;
  }
}

/** KECCAK256_NULL itself: accounts without code hold this reference, so `empty` compares by identity. */
const KECCAK256_NULL_REF = KECCAK256_NULL;

/** Whether the account has code. */
export function hasCode(account: Account): boolean {
  return account.codeHash !== KECCAK256_NULL_REF;
}

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

type Undo = () => void;

export interface AccountChange {
  account: Account;
  /** Its nonce, balance or existence changed. */
  fields: boolean;
  /** Its new code. */
  code: Uint8Array | undefined;
  storage: [slot: bigint, value: bigint][];
}

/** An address as its 40 hex digits: the world's key. */
export function keyOf(address: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 20; i++) s += HEX[address[i]];
  return s;
}
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class World {
  private readonly accounts = new Map<string, Account>();
  private readonly journal: Undo[] = [];
  /** Addresses warm in this transaction (EIP-2929); precompiles are warm through `isPrecompile`. */
  private readonly warm = new Set<string>();
  private readonly transient = new Map<string, Map<bigint, bigint>>();
  readonly logs: Log[] = [];
  /** Accounts self-destructed in this transaction. */
  readonly destructed = new Set<string>();
  /** Accounts created in this transaction (EIP-6780). */
  readonly created = new Set<string>();
  /** Accounts touched in this transaction (EIP-161: the empty ones are removed at its end). */
  readonly touched = new Set<string>();
  refund = 0;
  /**
   * When set, every address and slot the run warms, in order, kept through reverts (what
   * eth_createAccessList reports, as ethereumjs's journal reports it).
   */
  accessed: Map<string, Set<bigint>> | undefined;

  constructor(private readonly backend: StateBackend) {}

  // ------------------------------------------------------------ journal

  checkpoint(): number {
    return this.journal.length;
  }

  revert(to: number): void {
    const j = this.journal;
    while (j.length > to) (j.pop() as Undo)();
  }

  // ------------------------------------------------------------ accounts

  /** The account at `address`, held here once read (a miss reads the backend). */
  account(key: string, address: Uint8Array): Account | Promise<Account> {
    const held = this.accounts.get(key);
    if (held !== undefined) return held;
    return this.load(key, address);
  }

  private async load(key: string, address: Uint8Array): Promise<Account> {
    const found = await this.backend.account(address);
    // Another read may have loaded it meanwhile.
    const held = this.accounts.get(key);
    if (held !== undefined) return held;
    const account = new Account(key, address, found);
    if (found !== undefined && equalsNull(found.codeHash))
      account.codeHash = account.startCodeHash = KECCAK256_NULL_REF;
    this.accounts.set(key, account);
    return account;
  }

  /** An account's code, analysed (read from the backend once). */
  code(account: Account): AnalysedCode | Promise<AnalysedCode> {
    if (account.code !== undefined) return account.code;
    return this.loadCode(account);
  }

  private async loadCode(account: Account): Promise<AnalysedCode> {
    if (account.codeHash === KECCAK256_NULL_REF) return (account.code = EMPTY_CODE);
    const code = await this.backend.code(account.address, account.codeHash);
    account.code = analysedByHash(hexOf(account.codeHash), code);
    return account.code;
  }

  setBalance(account: Account, balance: bigint): void {
    const prev = account.balance;
    const existed = account.exists;
    this.journal.push(() => {
      account.balance = prev;
      account.exists = existed;
    });
    account.balance = balance;
    account.exists = true;
  }

  setNonce(account: Account, nonce: bigint): void {
    const prev = account.nonce;
    const existed = account.exists;
    this.journal.push(() => {
      account.nonce = prev;
      account.exists = existed;
    });
    account.nonce = nonce;
    account.exists = true;
  }

  setCode(account: Account, code: Uint8Array, codeHash: Uint8Array): void {
    const prev = account.code;
    const prevHash = account.codeHash;
    this.journal.push(() => {
      account.code = prev;
      account.codeHash = prevHash;
    });
    account.code = analyse(code);
    account.codeHash = code.length === 0 ? KECCAK256_NULL_REF : codeHash;
  }

  /** A creation over `account`: it exists, with no storage (what was there is gone). */
  create(account: Account): void {
    const { exists, cleared } = account;
    const storage = [...account.storage];
    this.journal.push(() => {
      account.exists = exists;
      account.cleared = cleared;
      account.storage.clear();
      for (const [slot, value] of storage) account.storage.set(slot, value);
    });
    account.exists = true;
    account.cleared = true;
    account.storage.clear();
    this.markCreated(account.key);
  }

  private markCreated(key: string): void {
    if (this.created.has(key)) return;
    this.created.add(key);
    this.journal.push(() => this.created.delete(key));
  }

  /** EIP-161: touched, so removed at the transaction's end if empty. */
  touch(account: Account): void {
    if (this.touched.has(account.key)) return;
    this.touched.add(account.key);
    this.journal.push(() => this.touched.delete(account.key));
  }

  markDestructed(account: Account): void {
    if (this.destructed.has(account.key)) return;
    this.destructed.add(account.key);
    this.journal.push(() => this.destructed.delete(account.key));
  }

  // ------------------------------------------------------------ storage

  /** A slot's current value (a miss reads the backend). */
  sload(account: Account, slot: bigint): bigint | Promise<bigint> {
    const v = account.storage.get(slot);
    if (v !== undefined) return v;
    if (account.cleared || !account.hadStorage) return 0n;
    return this.loadSlot(account, slot).then((orig) => {
      const now = account.storage.get(slot);
      if (now !== undefined) return now;
      account.storage.set(slot, orig);
      return orig;
    });
  }

  /** A slot's value at the start of the run (EIP-2200's original). */
  original(account: Account, slot: bigint): bigint | Promise<bigint> {
    const v = account.original.get(slot);
    if (v !== undefined) return v;
    if (!account.hadStorage) return 0n;
    return this.loadSlot(account, slot);
  }

  private async loadSlot(account: Account, slot: bigint): Promise<bigint> {
    const held = account.original.get(slot);
    if (held !== undefined) return held;
    const value = wordOf(await this.backend.storage(account.address, wordBytes(slot)));
    account.original.set(slot, value);
    return value;
  }

  sstore(account: Account, slot: bigint, value: bigint, current: bigint): void {
    const had = account.storage.has(slot);
    this.journal.push(() => {
      if (had) account.storage.set(slot, current);
      else account.storage.delete(slot);
    });
    account.storage.set(slot, value);
  }

  tload(key: string, slot: bigint): bigint {
    return this.transient.get(key)?.get(slot) ?? 0n;
  }

  tstore(key: string, slot: bigint, value: bigint): void {
    let slots = this.transient.get(key);
    if (slots === undefined) this.transient.set(key, (slots = new Map()));
    const m = slots;
    const prev = m.get(slot);
    this.journal.push(() => {
      if (prev === undefined) m.delete(slot);
      else m.set(slot, prev);
    });
    m.set(slot, value);
  }

  /**
   * What the run changed, account by account, to be written back: its nonce, balance or existence
   * (`fields`), its new code, the slots written with their values now.
   */
  *changes(): Generator<AccountChange> {
    for (const account of this.accounts.values()) {
      const fields =
        account.exists !== account.startExists ||
        account.nonce !== account.startNonce ||
        account.balance !== account.startBalance;
      const code =
        account.codeHash !== account.startCodeHash && account.code !== undefined ? account.code.code : undefined;
      const storage: [bigint, bigint][] = [];
      for (const [slot, value] of account.storage) {
        const before = account.cleared ? 0n : (account.original.get(slot) ?? 0n);
        if (value !== before) storage.push([slot, value]);
      }
      if (fields || code !== undefined || storage.length > 0) yield { account, fields, code, storage };
    }
  }

  // ------------------------------------------------------------ warm sets, logs, refund

  isWarm(key: string): boolean {
    return this.warm.has(key);
  }

  /** Warms `key`; true if it was cold. */
  warmAddress(key: string): boolean {
    if (this.warm.has(key)) return false;
    this.warm.add(key);
    this.journal.push(() => this.warm.delete(key));
    if (this.accessed !== undefined && !this.accessed.has(key)) this.accessed.set(key, new Set());
    return true;
  }

  /** Warms a slot of `account`; true if it was cold. */
  warmSlot(account: Account, slot: bigint): boolean {
    if (account.warmSlots.has(slot)) return false;
    account.warmSlots.add(slot);
    this.journal.push(() => account.warmSlots.delete(slot));
    if (this.accessed !== undefined) this.record(account.key, slot);
    return true;
  }

  /** Into the access report: an address, and a slot of it. */
  record(key: string, slot?: bigint): void {
    const accessed = this.accessed as Map<string, Set<bigint>>;
    let slots = accessed.get(key);
    if (slots === undefined) accessed.set(key, (slots = new Set()));
    if (slot !== undefined) slots.add(slot);
  }

  /** Warm before the run starts, never undone (the transaction's sender, recipient, access list). */
  preWarmAddress(key: string): void {
    this.warm.add(key);
  }

  preWarmSlot(account: Account, slot: bigint): void {
    account.warmSlots.add(slot);
  }

  log(entry: Log): void {
    this.logs.push(entry);
    this.journal.push(() => this.logs.pop());
  }

  addRefund(gas: number): void {
    const prev = this.refund;
    this.journal.push(() => (this.refund = prev));
    this.refund = prev + gas;
  }
}

const EMPTY_CODE = analyse(new Uint8Array(0));

function equalsNull(hash: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (hash[i] !== KECCAK256_NULL_REF[i]) return false;
  return true;
}

/** Bytes as unprefixed hex. */
export function hexOf(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
  return s;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Hex digit values by character code. */
const HEX_DIGIT = new Uint8Array(128);
for (let d = 0; d < 16; d++) HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = d;

/**
 * `v` (below 2^256) as a 32-byte word. Through its hex digits, which the engine makes natively, or
 * as a Number when it is one: a byte at a time by BigInt shifts cost ~5x more for a hash-sized value.
 */
export function wordBytes(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  if (v <= MAX_SAFE) {
    // A small value (an offset, a length, an amount) in Number arithmetic.
    for (let n = Number(v), i = 31; n > 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
    return out;
  }
  const hex = v.toString(16);
  for (let i = 31, j = hex.length; j > 0; i--) {
    const low = HEX_DIGIT[hex.charCodeAt(--j)];
    out[i] = j > 0 ? (HEX_DIGIT[hex.charCodeAt(--j)] << 4) | low : low;
  }
  return out;
}

/**
 * The big-endian value of `bytes[from, to)`: from its first byte not zero, six bytes at a time as an
 * exact Number, one BigInt shift and or per six (a byte at a time cost ~3x more for a 32-byte word).
 */
export function wordOf(bytes: Uint8Array, from = 0, to = bytes.length): bigint {
  let i = from;
  // Leading zeros skipped: a small value (a memory pointer, an amount) is one chunk.
  while (i < to && bytes[i] === 0) i++;
  from = i;
  let v = 0n;
  let head = (to - from) % 6;
  if (head > 0) {
    let n = 0;
    for (; head > 0; head--) n = n * 256 + bytes[i++];
    v = BigInt(n);
  }
  for (; i < to; i += 6) {
    const high = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    const low = (bytes[i + 3] << 16) | (bytes[i + 4] << 8) | bytes[i + 5];
    v = (v << 48n) | BigInt(high * 16777216 + low);
  }
  return v;
}

/** The big-endian value of the `size` bytes at `from`, zeros past the end of `bytes` (PUSH, CALLDATALOAD). */
export function paddedWordOf(bytes: Uint8Array, from: number, size: number): bigint {
  const end = from + size;
  return end <= bytes.length ? wordOf(bytes, from, end) : wordOf(bytes, from) << BigInt(8 * (end - bytes.length));
}
