import { bytesToHex } from '@ethereumjs/util';

/** geth's abi.panicReasons: what each Solidity panic code means. */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/**
 * A revert payload's reason, as geth's abi.UnpackRevert gives it: Error(string)'s string, a
 * Panic(uint256)'s meaning; none for anything else.
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  const selector = bytesToHex(data.subarray(0, 4));
  if (selector === '0x08c379a0' && data.length >= 68) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const length = Number(view.getBigUint64(4 + 32 + 24));
    const start = 4 + 64;
    if (start + length <= data.length) return new TextDecoder().decode(data.subarray(start, start + length));
    return undefined;
  }
  if (selector === '0x4e487b71' && data.length >= 36) {
    const code = BigInt(bytesToHex(data.subarray(4, 36)));
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
