/**
 * The lines a precompile call adds, module by module (OOB, HUB, EC_DATA, SHAKIRA_DATA, BLAKE_MODEXP_DATA,
 * BLS_DATA and the per-precompile counters), as Linea's tracer counts them; called once the call has
 * run, with its input and outcome.
 */
import type { Conflation } from './conflation';
import { shakiraRows } from './lineProfiles';

/** What a precompile call came to. */
export type PrecompileResult = { exceptionError?: { error?: string }; returnValue?: Uint8Array };

// OOB rows per call: CT_MAX + 1 (OobOperation.nRows), CT_MAX from linea-constraints 757614b
// oob/london/constants.lisp. Unexceptional CALL-family instructions call CALL; precompiles are
// called only when the call reaches them.
export const OOB = {
  JUMP: 1,
  JUMPI: 2,
  RDC: 3,
  CDL: 1,
  CALL: 3,
  CREATE: 4,
  SSTORE: 1,
  DEPLOYMENT: 1,
  // by precompile address: ECRECOVER 3, SHA2 4, RIPEMD 4, IDENTITY 4, (MODEXP), ECADD 3, ECMUL 3, ECPAIRING 5, BLAKE2F cds 2
  PRECOMPILE: [0, 3, 4, 4, 4, 0, 3, 3, 5, 2] as readonly number[],
  BLAKE_PARAMS: 2,
  // CDS 3, XBS 3 for each of the three sizes, LEAD 4, PRICING 6, EXTRACT 4 (when the call can pay)
  MODEXP: 3 + 3 * 3 + 4 + 6,
  MODEXP_EXTRACT: 4,
};

/** BLS_DATA rows (data + result) by precompile address, for a call data size the module accepts. */
function blsRows(address: number, n: number): number | undefined {
  switch (address) {
    case 0x0a:
      return n === 192 ? 16 : undefined;
    case 0x0b:
      return n === 256 ? 24 : undefined;
    case 0x0c:
      return n > 0 && n % 160 === 0 ? n / 16 + 8 : undefined;
    case 0x0d:
      return n === 512 ? 48 : undefined;
    case 0x0e:
      return n > 0 && n % 288 === 0 ? n / 16 + 16 : undefined;
    case 0x0f:
      return n > 0 && n % 384 === 0 ? n / 16 + 2 : undefined;
    case 0x10:
      return n === 64 ? 12 : undefined;
    case 0x11:
      return n === 128 ? 24 : undefined;
    default:
      return undefined;
  }
}

/**
 * The full tracer of a fork (`london`, `osaka`: ZkTracer's modules), or the light counter
 * (`limitless`: ZkCounter.tracePrecompileCall).
 */
export type PrecompileCounting = 'london' | 'osaka' | 'limitless';

export function countPrecompileCall(
  c: Conflation,
  mode: PrecompileCounting,
  address: number,
  data: Uint8Array,
  r: PrecompileResult,
): void {
  const ok = r.exceptionError === undefined;
  const n = data.length;
  const london = mode === 'london';
  // HUB: ZkTracer's precompile subsection (osaka), else ZkCounter's NB_ROWS_HUB_PRC_* bounds, which
  // the London profile uses too.
  const hub =
    mode === 'osaka'
      ? osakaSubsectionRows(address, n, ok)
      : ([0, 4, 4, 4, 3, 13, 4, 4, 4, 6][address] ?? (london ? undefined : 4));
  if (hub !== undefined) c.add('HUB', hub);
  if (mode === 'limitless' && limitlessPrecompile(c, address, data, ok)) return;
  if (address < OOB.PRECOMPILE.length) c.add('OOB', OOB.PRECOMPILE[address]);
  const blocks = Math.floor((8 * n + 1 + 64 + 511) / 512);
  switch (address) {
    case 1: {
      // EC_DATA is called for a non-empty input; the call is effective when its checks pass.
      if (n !== 0) c.add('EC_DATA', 10);
      const recovered = ok && r.returnValue !== undefined && r.returnValue.length > 0;
      if (recovered) {
        c.add('PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS', 1);
        c.add('BLOCK_KECCAK', 1);
      }
      return;
    }
    case 2:
    case 3:
      if (!ok || n === 0) return;
      c.add('SHAKIRA_DATA', shakiraRows(n));
      c.add(address === 2 ? 'PRECOMPILE_SHA2_BLOCKS' : 'PRECOMPILE_RIPEMD_BLOCKS', blocks);
      return;
    case 5: {
      const sizes = [0, 32, 64].map((o) => modexpSize(data, o));
      if (london) {
        // ModexpSubsection: a size over 512 bytes makes the effective-call count unprovable.
        if (sizes.some((s) => s > 512n)) {
          c.add('PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 2 ** 31 - 1);
          return;
        }
        c.add('OOB', OOB.MODEXP + (ok ? OOB.MODEXP_EXTRACT : 0));
        if (sizes[1] > 0n) c.add('EXP', 21);
        if (!ok) return;
        c.add('BLAKE_MODEXP_DATA', 128);
        c.add('PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 1);
        return;
      }
      // Osaka (BlakeModexpData.callModexp, on success only): 4·1024/16 rows; large past 32 bytes.
      if (sizes[1] > 0n) c.add('EXP', 1);
      if (!ok) return;
      c.add('BLAKE_MODEXP_DATA', 256);
      c.add('PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 1);
      if (sizes.some((s) => s > 32n)) c.add('PRECOMPILE_LARGE_MODEXP_EFFECTIVE_CALLS', 1);
      return;
    }
    case 6:
      if (n !== 0) c.add('EC_DATA', 12);
      if (ok) c.add('PRECOMPILE_ECADD_EFFECTIVE_CALLS', 1);
      return;
    case 7:
      if (n !== 0) c.add('EC_DATA', 10);
      if (ok) c.add('PRECOMPILE_ECMUL_EFFECTIVE_CALLS', 1);
      return;
    case 8: {
      if (n === 0 || n % 192 !== 0) return;
      const pairs = n / 192;
      c.add('EC_DATA', 12 * pairs + 2);
      if (!ok) return;
      // EcDataOperation's circuit selectors (a successful call: every point valid, every large point
      // on G2): a pair whose large point is not at infinity needs a Miller loop, or only a G2
      // membership test when its small point is at infinity; one final exponentiation if any loop.
      let loops = 0;
      let memberships = 0;
      for (let i = 0; i < pairs; i++) {
        if (isZero(data, 192 * i + 64, 128)) continue;
        if (isZero(data, 192 * i, 64)) memberships++;
        else loops++;
      }
      c.add('PRECOMPILE_ECPAIRING_MILLER_LOOPS', loops);
      c.add('PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS', memberships);
      if (loops > 0) c.add('PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS', 1);
      return;
    }
    case 9:
      c.add('BLAKE_MODEXP_DATA', 19);
      if (n === 213) c.add('OOB', OOB.BLAKE_PARAMS);
      if (!ok) return;
      c.add('PRECOMPILE_BLAKE_EFFECTIVE_CALLS', 1);
      if (n >= 4) c.add('PRECOMPILE_BLAKE_ROUNDS', new DataView(data.buffer, data.byteOffset, 4).getUint32(0));
      return;
    default:
      if (!london) osakaPrecompile(c, address, n, ok);
  }
}

/**
 * ZkTracer's precompile subsection of a CALL section (hub/section/call/precompileSubsection/*): SCN
 * and IMC, then the rows of a successful call. BLAKE2F that fails on its parameters (213 bytes of
 * call data) has 3.
 */
function osakaSubsectionRows(address: number, n: number, ok: boolean): number {
  switch (address) {
    case 4: // IDENTITY
      return ok ? 3 : 2;
    case 5: // MODEXP: SCN + 6 IMC always, + 5 IMC
      return ok ? 12 : 7;
    case 9: // BLAKE2F
      return ok ? 5 : n === 213 ? 3 : 2;
    default: // the EC, BLS, P256 and point-evaluation calls, SHA2-256, RIPEMD-160
      return ok ? 4 : 2;
  }
}

/**
 * Where ZkCounter.tracePrecompileCall differs from the full tracer (the rest is the same, OOB and EXP
 * are not checked): RIPEMD160 tallies call data bytes, every BLAKE2F call is effective, MODEXP fills
 * its data rows and counts as large whatever its outcome. True when it counted the call.
 */
function limitlessPrecompile(c: Conflation, address: number, data: Uint8Array, ok: boolean): boolean {
  const n = data.length;
  switch (address) {
    case 3:
      if (ok && n !== 0) {
        c.add('SHAKIRA_DATA', shakiraRows(n));
        c.add('PRECOMPILE_RIPEMD_BLOCKS', n);
      }
      return true;
    case 5: {
      c.add('BLAKE_MODEXP_DATA', 256); // 4 · EIP_7823_MODEXP_UPPER_BYTE_SIZE_BOUND / 16
      if (ok) c.add('PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 1);
      if ([0, 32, 64].some((o) => modexpSize(data, o) > 32n)) c.add('PRECOMPILE_LARGE_MODEXP_EFFECTIVE_CALLS', 1);
      return true;
    }
    case 9:
      c.add('PRECOMPILE_BLAKE_EFFECTIVE_CALLS', 1);
      c.add('BLAKE_MODEXP_DATA', 19); // numberOfRowsBlake()
      return true;
    default:
      return false;
  }
}

/** The Prague/Osaka precompiles: BLS_DATA rows, and the BLS, KZG and P256 counters. */
function osakaPrecompile(c: Conflation, address: number, n: number, ok: boolean): void {
  if (address === 0x100) {
    if (n === 160) c.add('EC_DATA', 12);
    if (ok) c.add('PRECOMPILE_P256_VERIFY_EFFECTIVE_CALLS', 1);
    return;
  }
  const rows = blsRows(address, n);
  if (rows === undefined) return;
  c.add('BLS_DATA', rows);
  if (address === 0x0a) {
    c.add(
      ok ? 'PRECOMPILE_BLS_POINT_EVALUATION_EFFECTIVE_CALLS' : 'PRECOMPILE_POINT_EVALUATION_FAILURE_EFFECTIVE_CALLS',
      1,
    );
    return;
  }
  if (!ok) return;
  const counter = {
    0x0b: 'PRECOMPILE_BLS_G1_ADD_EFFECTIVE_CALLS',
    0x0c: 'PRECOMPILE_BLS_G1_MSM_EFFECTIVE_CALLS',
    0x0d: 'PRECOMPILE_BLS_G2_ADD_EFFECTIVE_CALLS',
    0x0e: 'PRECOMPILE_BLS_G2_MSM_EFFECTIVE_CALLS',
    0x10: 'PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS',
    0x11: 'PRECOMPILE_BLS_MAP_FP2_TO_G2_EFFECTIVE_CALLS',
  }[address];
  if (counter !== undefined) c.add(counter, 1);
  else if (address === 0x0f) {
    c.add('PRECOMPILE_BLS_PAIRING_CHECK_MILLER_LOOPS', n / 384);
    c.add('PRECOMPILE_BLS_FINAL_EXPONENTIATIONS', 1);
  }
}

/** A MODEXP length field (32 bytes at `offset` of the input, zero-padded). */
function modexpSize(data: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(data[offset + i] ?? 0);
  return v;
}

/** Whether `length` bytes of `data` at `offset` are all zero (a point at infinity). */
function isZero(data: Uint8Array, offset: number, length: number): boolean {
  for (let i = offset; i < offset + length; i++) if (data[i] !== 0) return false;
  return true;
}
