/**
 * geth's prestateTracer: the accounts and slots a transaction touched, as they were before it; with
 * diffMode, what changed: `pre` and `post` of the modified fields only.
 */
import { bytesToBigInt, equalsBytes } from '@ethereumjs/util';

import type { MessageResult, OpcodeState, PrestateAccount, StateReader, TraceResult, Tracer } from './tracer';

export interface PrestateTracerConfig {
  diffMode?: boolean;
}

/** An account as read, and whether it exists (a non-zero balance or nonce, or code). */
type Read = { account: PrestateAccount; exists: boolean };

const ADDRESS_MASK = (1n << 160n) - 1n;

export class PrestateTracer implements Tracer {
  readonly steps = false;
  readonly opcodes = [0x54, 0x55, 0x31, 0x3b, 0x3c, 0x3f, 0xff, 0xf1, 0xf2, 0xf4, 0xfa];
  /** Accounts touched (unprefixed hex) with the slots read or written. */
  private readonly touched = new Map<string, { address: Uint8Array; slots: Set<bigint> }>();
  private readonly states: Partial<Record<'pre' | 'post', Map<string, Read>>> = {};

  constructor(
    private readonly config: PrestateTracerConfig,
    start: Uint8Array[],
  ) {
    for (const a of start) this.touch(a);
  }

  private touch(address: Uint8Array | bigint, slot?: bigint): void {
    const bytes =
      typeof address === 'bigint'
        ? Uint8Array.from(Buffer.from((address & ADDRESS_MASK).toString(16).padStart(40, '0'), 'hex'))
        : address;
    const key = Buffer.from(bytes).toString('hex');
    let entry = this.touched.get(key);
    if (entry === undefined) this.touched.set(key, (entry = { address: bytes, slots: new Set() }));
    if (slot !== undefined) entry.slots.add(slot);
  }

  /**
   * The accounts and slots an instruction reaches, as geth's prestateTracer OnOpcode takes them: read
   * as the instruction starts, its gas paid (one that fails before then touches nothing, as geth's
   * hook returns on an error).
   */
  onOpcode(code: number, state: OpcodeState): void {
    switch (code) {
      case 0x54: // SLOAD
      case 0x55: // SSTORE
        this.touch(state.interpreter.getAddress().bytes, state.stack.peek(1)[0]);
        return;
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3c: // EXTCODECOPY
      case 0x3f: // EXTCODEHASH
      case 0xff: // SELFDESTRUCT
        this.touch(state.stack.peek(1)[0]);
        return;
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        this.touch(state.stack.peek(2)[1]);
        return;
      default:
    }
  }

  onExit(result: MessageResult): void {
    if (result.createdAddress !== undefined) this.touch(result.createdAddress.bytes);
  }

  async capture(phase: 'post' | 'pre', state: StateReader): Promise<void> {
    const out = new Map<string, Read>();
    for (const [key, { address, slots }] of this.touched) {
      const a = await state.account(address);
      const account: PrestateAccount = { address, balance: a.balance };
      if (a.nonce > 0n) account.nonce = a.nonce;
      if (a.code.length > 0) account.code = a.code;
      if (slots.size > 0) {
        account.storage = [];
        for (const slot of slots) {
          const word = Uint8Array.from(Buffer.from(slot.toString(16).padStart(64, '0'), 'hex'));
          account.storage.push([slot, bytesToBigInt(await state.storage(address, word))]);
        }
      }
      out.set(key, { account, exists: a.balance !== 0n || a.nonce !== 0n || a.code.length > 0 });
    }
    this.states[phase] = out;
  }

  result(): TraceResult {
    const pre = this.states.pre ?? new Map<string, Read>();
    const post = this.states.post ?? new Map<string, Read>();
    if (this.config.diffMode !== true)
      return { tracer: 'prestateTracer', accounts: [...pre.values()].map((r) => r.account) };
    const preOut: PrestateAccount[] = [];
    const postOut: PrestateAccount[] = [];
    for (const [key, before] of pre) {
      const after = post.get(key);
      if (after === undefined) continue;
      const b = before.account;
      const a = after.account;
      const changed: PrestateAccount = { address: a.address };
      if (a.balance !== b.balance) changed.balance = a.balance;
      if (a.nonce !== b.nonce) changed.nonce = a.nonce;
      if (!sameCode(a.code, b.code)) changed.code = a.code;
      const old = new Map(b.storage ?? []);
      const preSlots: [bigint, bigint][] = [];
      const postSlots: [bigint, bigint][] = [];
      for (const [slot, value] of a.storage ?? []) {
        const was = old.get(slot) ?? 0n;
        if (value === was) continue;
        if (value !== 0n) postSlots.push([slot, value]);
        if (was !== 0n) preSlots.push([slot, was]);
      }
      if (postSlots.length > 0) changed.storage = postSlots;
      const fieldsChanged = Object.keys(changed).length > 1;
      if (!fieldsChanged && preSlots.length === 0) continue;
      if (fieldsChanged) postOut.push(changed);
      if (before.exists) {
        const { storage: _all, ...rest } = b;
        void _all;
        preOut.push(preSlots.length > 0 ? { ...rest, storage: preSlots } : rest);
      }
    }
    return { tracer: 'prestateTracer', diff: { pre: preOut, post: postOut } };
  }
}

function sameCode(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equalsBytes(a, b);
}
