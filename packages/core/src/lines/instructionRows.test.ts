import { Conflation } from './conflation';
import type { LineCounts } from './conflation';
import { instructionHook } from './instructionRows';
import type { Frame, InstructionCounting } from './instructionRows';
import { profileOf } from './lineProfiles';

/** The rows instruction `code` adds on the limitless counter with `stack` (top first) before it runs. */
function limitlessRows(code: number, stack: bigint[]): LineCounts {
  const profile = profileOf('osaka', 'limitless');
  const frame: Frame = { deploying: false, halted: false, undo: 0 };
  const k: InstructionCounting = {
    c: new Conflation(profile),
    mode: 'limitless',
    bridge: { contract: new Uint8Array(20), topic: new Uint8Array(32) },
    profile,
    lastGasLeft: 0n,
    nextCallDataOffset: undefined,
    top: () => frame,
    halt: () => {},
    deploymentStop: () => {},
    trm: () => {},
    wcp: () => {},
    euc: () => {},
  };
  const before = k.c.counts();
  instructionHook(k, code)?.({ length: stack.length, peek: (n) => stack.slice(0, n) });
  const after = k.c.counts();
  const added: LineCounts = {};
  for (const m in after) if (after[m] !== before[m]) added[m] = after[m] - before[m];
  return added;
}

// ZkCounter.tracePreExecution's CREATE case (Consensys/linea-monorepo cb180134,
// tracer/arithmetization/src/main/java/net/consensys/linea/zktracer/ZkCounter.java): NB_ROWS_GAS and
// NB_ROWS_STP (1 each), MXP's NB_ROWS_MXP_UPDT_W, RLP_ADDR's NB_ROWS_RLPADDR_CREATE (MAX_CT_CREATE 7
// + 1) or _CREATE2 (MAX_CT_CREATE2 5 + 1, tracer-constraints/rlpaddr/constants.lisp), and Keccak's
// blocks of MAX_SIZE_RLP_HASH_CREATE (31 bytes) or _CREATE2 (85 bytes) (module/rlpaddr/
// RlpAddrOperation.java); CREATE2 also hashes its init code, in SHAKIRA_DATA and Keccak, unless the
// stack is short of its operands.
describe("the limitless counter's CREATE rows (ZkCounter)", () => {
  const osakaWordMxp = 14;
  test('CREATE', () => {
    expect(limitlessRows(0xf0, [0n, 0n, 200n])).toEqual({
      GAS: 1,
      STP: 1,
      MXP: osakaWordMxp,
      RLP_ADDR: 8,
      BLOCK_KECCAK: 1,
    });
  });

  test('CREATE2 with 200 bytes of init code', () => {
    expect(limitlessRows(0xf5, [0n, 0n, 200n, 0n])).toEqual({
      GAS: 1,
      STP: 1,
      MXP: osakaWordMxp,
      RLP_ADDR: 6,
      // 85 bytes, then the init code's 200: 1 + 2 blocks of 136.
      BLOCK_KECCAK: 3,
      // 13 limbs of 16 bytes and the result's 2 rows (NB_ROWS_SHAKIRA_RESULT).
      SHAKIRA_DATA: 15,
    });
  });

  test('CREATE2 without its operands: the stack exception rows, no hash of the init code', () => {
    expect(limitlessRows(0xf5, [0n, 0n])).toEqual({
      GAS: 1,
      STP: 1,
      MXP: osakaWordMxp,
      RLP_ADDR: 6,
      BLOCK_KECCAK: 1,
      HUB: 2,
    });
  });
});
