import { bytesToHex } from '@ethereumjs/util';

/** Decodes a revert payload: Error(string) → the string, Panic(uint256) → `panic: 0x..`, else none. */
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
    return `panic: 0x${code.toString(16).padStart(2, '0')}`;
  }
  return undefined;
}
