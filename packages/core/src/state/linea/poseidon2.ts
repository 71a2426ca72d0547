/**
 * Poseidon2 over KoalaBear (p = 2^31 - 2^24 + 1), width 16, as Linea's state manager hashes its
 * sparse Merkle tries today: Shomei's `HashProvider.poseidon2` (crypto/src/main/java/net/consensys/
 * zkevm/HashProvider.java, gnark-crypto's `poseidon2` for KoalaBear through gnark_jni), verified on
 * chain by Linea's `contracts/src/libraries/Poseidon2.sol` (Apache-2.0), whose round keys and
 * matrices these are.
 *
 * A 32-byte word is 8 field elements (big-endian 32-bit limbs, each below p). The hash is a
 * Merkle-Damgård chain over 32-byte blocks: h = 0, then for each block m, h = perm(h ‖ m)[8..16] + m
 * limb by limb; a last block shorter than 32 bytes is left-padded with zeros (gnark-crypto's
 * `Write`, as `SparseMerkleProof.hashAccountKey` relies on).
 */

import { POSEIDON2_WASM } from './poseidon2Wasm';

export const KOALABEAR_P = 2_130_706_433;
const P = KOALABEAR_P;

const INV_P = 1 / P;

/**
 * a·b mod p for a, b < 2p. The quotient from doubles is exact or off by one (the product's rounding
 * error is below 2^10, far under p); the remainder is exact in 32-bit integer arithmetic.
 */
function mulMod(a: number, b: number): number {
  const q = Math.floor(a * b * INV_P);
  const r = (Math.imul(a, b) - Math.imul(q, P)) | 0;
  return r < 0 ? r + P : r >= P ? r - P : r;
}

function sbox(x: number): number {
  return mulMod(mulMod(x, x), x);
}

/** A 256-bit constant of Poseidon2.sol as its 8 limbs, the first in the top 32 bits. */
function limbs(word: bigint): number[] {
  const out: number[] = [];
  for (let i = 7; i >= 0; i--) out.push(Number((word >> BigInt(32 * i)) & 0xffffffffn));
  return out;
}

/** Round keys of the 3 + 3 full rounds, 16 each (Poseidon2.sol RK_0..RK_2, RK_24..RK_26). */
const FULL_ROUND_KEYS: number[][] = [
  [
    52691802021506155758914962750280372212207119203515444126415105344946620971042n,
    32207471970256316655474490955553459742787419335289228299095903266455798739660n,
  ],
  [
    22163791677048831312463448776400028385347383911100916908889018061663075177430n,
    52176870515245694198691020358647906763460864198395806999480367588806463375956n,
  ],
  [
    20057732892593326318373784289292844513497509146673516636435948826170767804894n,
    18178750968836063378915279115560606579387492034215281114134869585318875352069n,
  ],
  [
    7748602703960850726417234176553190502144764796409545305676706613632081374108n,
    14236178139181542176197168604443439317755831764127965411495610808590768539130n,
  ],
  [
    4390545490380878999875851257118004037103299792992754784803412502652715488373n,
    15895992674755709583772916119416271803214403026810424648839392700430632374893n,
  ],
  [
    37373517675827041221658956101645979913006475784844873469590649853964048342988n,
    46010512812451809471058691124553676654818408969360806522307687423952321374687n,
  ],
].map(([a, b]) => [...limbs(a), ...limbs(b)]);

/** Round keys of the 21 partial rounds, for the first element only (Poseidon2.sol RK_3..RK_23). */
const PARTIAL_ROUND_KEYS = [
  271263440, 648183298, 1662653166, 1984135584, 594964655, 108023522, 849546096, 1961993938, 1546336947, 1036613726,
  452088758, 275827416, 763236035, 1068717067, 1580958419, 1376393748, 892777736, 1345121022, 908739241, 908871000,
  1053550888,
];

/** v mod p for 0 <= v < 2^52 (the quotient from doubles is exact or off by one). */
function reduce(v: number): number {
  const r = v - Math.floor(v * INV_P) * P;
  return r < 0 ? r + P : r >= P ? r - P : r;
}

/** v mod p for 0 <= v < 2p. */
function below2p(v: number): number {
  return v >= P ? v - P : v;
}

/** x / 2^k mod p for x < p, k <= 8: p = 1 mod 2^24, so adding (-x mod 2^k)·p makes x divisible. */
function div2k(x: number, k: number): number {
  const mask = (1 << k) - 1;
  return (x + ((mask + 1 - (x & mask)) & mask) * P) / (mask + 1);
}

/** circ(2·M4, M4, M4, M4) with M4 = [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] (Poseidon2.sol matMulExternalInPlace). */
function external(s: Float64Array): void {
  for (let g = 0; g < 16; g += 4) {
    const a = s[g],
      b = s[g + 1],
      c = s[g + 2],
      d = s[g + 3];
    const t01 = a + b,
      t23 = c + d,
      t0123 = t01 + t23,
      t01123 = t0123 + b,
      t01233 = t0123 + d;
    s[g] = t01 + t01123;
    s[g + 1] = c + c + t01123;
    s[g + 2] = t23 + t01233;
    s[g + 3] = a + a + t01233;
  }
  for (let j = 0; j < 4; j++) {
    const t = s[j] + s[j + 4] + s[j + 8] + s[j + 12];
    s[j] = reduce(s[j] + t);
    s[j + 4] = reduce(s[j + 4] + t);
    s[j + 8] = reduce(s[j + 8] + t);
    s[j + 12] = reduce(s[j + 12] + t);
  }
}

/**
 * x_i ← sum + d_i·x_i with the internal matrix's diagonal d = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4,
 * 1/2^8, 1/8, 1/2^24 (= -127), -1/2^8, -1/8, -1/16, -1/2^24 (= 127)] mod p (Poseidon2.sol
 * matMulInternalInPlaceFirstHalf/SecondHalf), each product taken without a general multiplication.
 */
function internal(s: Float64Array): void {
  let sum = 0;
  for (let i = 0; i < 16; i++) sum += s[i];
  sum = reduce(sum);
  const x3 = s[3],
    x6 = s[6];
  const half3 = x3 % 2 === 1 ? (x3 + P) / 2 : x3 / 2;
  const half6 = x6 % 2 === 1 ? (x6 + P) / 2 : x6 / 2;
  // Below 2p: one subtraction; larger multiples: a reduction.
  s[0] = reduce(sum + 2 * P - 2 * s[0]);
  s[1] = below2p(sum + s[1]);
  s[2] = reduce(sum + 2 * s[2]);
  s[3] = below2p(sum + half3);
  s[4] = reduce(sum + 3 * s[4]);
  s[5] = reduce(sum + 4 * s[5]);
  s[6] = below2p(sum + P - half6);
  s[7] = reduce(sum + 3 * P - 3 * s[7]);
  s[8] = reduce(sum + 4 * P - 4 * s[8]);
  s[9] = below2p(sum + div2k(s[9], 8));
  s[10] = below2p(sum + div2k(s[10], 3));
  s[11] = reduce(sum + 127 * P - 127 * s[11]);
  s[12] = below2p(sum + P - div2k(s[12], 8));
  s[13] = below2p(sum + P - div2k(s[13], 3));
  s[14] = below2p(sum + P - div2k(s[14], 4));
  s[15] = reduce(sum + 127 * s[15]);
}

function fullRound(s: Float64Array, keys: number[]): void {
  // The S-box's multiplication reduces a sum below 2p.
  for (let i = 0; i < 16; i++) s[i] = sbox(s[i] + keys[i]);
  external(s);
}

/** The permutation of 16 elements (each below p), in place. */
function permute(s: Float64Array): void {
  external(s);
  for (let r = 0; r < 3; r++) fullRound(s, FULL_ROUND_KEYS[r]);
  for (const key of PARTIAL_ROUND_KEYS) {
    s[0] = sbox(s[0] + key);
    internal(s);
  }
  for (let r = 3; r < 6; r++) fullRound(s, FULL_ROUND_KEYS[r]);
}

const state = new Float64Array(16);

function readLimb(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}

/**
 * The hash in JavaScript: the reference the WebAssembly build (poseidon2.wat) is checked against, and
 * what hashes an input too long for its memory.
 */
export function poseidon2Js(input: Uint8Array): Uint8Array {
  const h = new Float64Array(8);
  const m = new Float64Array(8);
  const padded = input.length % 32 === 0 ? input : leftPadLastBlock(input);
  for (let at = 0; at < padded.length; at += 32) {
    for (let i = 0; i < 8; i++) {
      m[i] = readLimb(padded, at + 4 * i) % P;
      state[i] = h[i];
      state[8 + i] = m[i];
    }
    permute(state);
    for (let i = 0; i < 8; i++) h[i] = (state[8 + i] + m[i]) % P;
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = h[i];
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = (v >>> 16) & 0xff;
    out[4 * i + 2] = (v >>> 8) & 0xff;
    out[4 * i + 3] = v & 0xff;
  }
  return out;
}

/**
 * The internal matrix's diagonal (Poseidon2.sol matMulInternalInPlace*), as the WebAssembly build
 * multiplies by it: [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/8, 1/2^24, -1/2^8, -1/8, -1/16,
 * -1/2^24] mod p (`internal` above takes the same products without multiplications).
 */
const INTERNAL_DIAGONAL = [
  P - 2,
  1,
  2,
  1065353217,
  3,
  4,
  1065353216,
  P - 3,
  P - 4,
  2122383361,
  1864368129,
  2130706306,
  8323072,
  266338304,
  133169152,
  127,
];

/** Where poseidon2.wat keeps its constants, its input and its output (see its header). */
const WASM_CONSTANTS = 1024;
const WASM_OUT = 2048;
const WASM_IN = 4096;

/** What this file uses of the WebAssembly API (a global of Node's, which the compiler's libraries here do not declare). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

/** The WebAssembly build, its constants written from this file's; compiled at the first hash, not at start-up. */
let compiled: { memory: Uint8Array; hash: (length: number) => void } | undefined;
const instantiate = () => {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(POSEIDON2_WASM, 'base64')));
  const exports = instance.exports as { memory: { buffer: ArrayBuffer }; hash: (length: number) => void };
  const words = new Uint32Array(exports.memory.buffer, WASM_CONSTANTS, 6 * 16 + 21 + 16);
  words.set(FULL_ROUND_KEYS.flat(), 0);
  words.set(PARTIAL_ROUND_KEYS, 96);
  words.set(INTERNAL_DIAGONAL, 117);
  return { memory: new Uint8Array(exports.memory.buffer), hash: exports.hash };
};

/** The Poseidon2 hash of `input` (any length; blocks of 32 bytes, the last left-padded). */
export function poseidon2(input: Uint8Array): Uint8Array {
  const wasm = (compiled ??= instantiate());
  const length = input.length % 32 === 0 ? input.length : input.length + 32 - (input.length % 32);
  if (WASM_IN + length > wasm.memory.length) return poseidon2Js(input);
  const padded = length === input.length ? input : leftPadLastBlock(input);
  wasm.memory.set(padded, WASM_IN);
  wasm.hash(length);
  return wasm.memory.slice(WASM_OUT, WASM_OUT + 32);
}

function leftPadLastBlock(input: Uint8Array): Uint8Array {
  const whole = input.length - (input.length % 32);
  const out = new Uint8Array(whole + 32);
  out.set(input.subarray(0, whole));
  out.set(input.subarray(whole), out.length - (input.length - whole));
  return out;
}

/**
 * Bytes as field elements that cannot overflow p: every 2 bytes become a 4-byte limb 0x0000XXXX
 * (Shomei's `PoseidonSafeBytesUtils.convertToPoseidonSafeFieldElementsSize`, util/src/main/java/
 * net/consensys/shomei/util/bytes/). An odd length puts the lone byte in the limb that starts the
 * last group of 8 (0x000000XX), as Shomei does.
 */
export function poseidonSafe(value: Uint8Array): Uint8Array {
  const odd = value.length % 2 !== 0;
  const limbCount = (value.length + (odd ? 1 : 0)) / 2;
  const out = new Uint8Array(limbCount * 4);
  let offset = 0;
  for (let i = 0; i < limbCount; i++) {
    const src = i * 2 - offset;
    if (odd && i % 8 === 0 && limbCount - i <= 8) {
      offset = 1;
      out[4 * i + 3] = value[src];
    } else {
      out[4 * i + 2] = value[src];
      out[4 * i + 3] = value[src + 1];
    }
  }
  return out;
}
