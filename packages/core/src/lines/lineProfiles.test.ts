/**
 * Module rules with worked examples (operands in, rows out), each computed by hand from the Java
 * method the rule cites, and the profiles' behaviour on small programs run through the chain.
 */
import { hexToBytes } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';

import { Chain } from '../chain/chain';
import { systemContractAddress } from '../config/systemContracts';
import { signedTx } from '../../test/helpers';
import { Conflation } from './conflation';
import { LineCounter } from './lineCounter';
import {
  LIMITLESS,
  PROFILES,
  addRows,
  binRows,
  extRows,
  logDataRows,
  logInfoRows,
  modRows,
  mulRows,
  rlpReceiptRows,
  rlpTxnRows,
  romRows,
  shakiraRows,
  shfRows,
  wcpRows,
} from './lineProfiles';
import type { CounterName, TracerProfileName } from './lineProfiles';

const MAX = (1n << 256n) - 1n;
const CALLEE = '0x00000000000000000000000000000000000ca11e';
const OP = { NOT: 0x19, BYTE: 0x1a, AND: 0x16, SIGNEXTEND: 0x0b, SHL: 0x1b, SHR: 0x1c, SAR: 0x1d, LT: 0x10, EQ: 0x14 };

describe('London row formulas', () => {
  test('ADD/SUB (AddOperation): ctMax = max(1, max(len(res.hi), len(res.lo)) - 1), rows = ctMax + 1', () => {
    expect(addRows(false, 1n, 1n)).toBe(2); // res 2: one byte
    expect(addRows(false, 0xffffn, 1n)).toBe(3); // res 0x10000: three bytes
    expect(addRows(false, MAX, 0n)).toBe(16); // res.lo 16 bytes
    expect(addRows(true, 0n, 1n)).toBe(16); // wraps to 2^256 - 1
    expect(addRows(false, MAX, 1n)).toBe(2); // wraps to 0
  });

  test('BIN (BinOperation computeCtMax): AND/OR/XOR by operand length, NOT 16, BYTE/SIGNEXTEND 16 or 1', () => {
    expect(binRows(OP.AND, 0xffn, 0xff00n)).toBe(2);
    expect(binRows(OP.AND, 0n, 0n)).toBe(1);
    expect(binRows(OP.AND, MAX, 1n)).toBe(16);
    expect(binRows(OP.NOT, 0n, 0n)).toBe(16);
    expect(binRows(OP.BYTE, 31n, MAX)).toBe(16);
    expect(binRows(OP.SIGNEXTEND, 1n << 128n, MAX)).toBe(1);
  });

  test('MOD (ModOperation numberOfRows): 1 for a zero divisor, else 8', () => {
    expect(modRows(0n)).toBe(1);
    expect(modRows(7n)).toBe(8);
  });

  test('MUL (MulOperation): trivial 1, MUL 8, EXP to 0 8, EXP 8·(bits + set bits − 1)', () => {
    expect(mulRows(false, 1n, MAX)).toBe(1);
    expect(mulRows(false, 2n, 3n)).toBe(8);
    expect(mulRows(true, 3n, 1n)).toBe(1);
    expect(mulRows(true, 2n, 10n)).toBe(8 * (4 + 2 - 1)); // 10 = 0b1010
    expect(mulRows(true, 2n, 256n)).toBe(8); // 2^256 wraps to 0
  });

  test('SHF (ShfOperation maxCt): 1 for a logical shift by 2^128 or more, else 16', () => {
    expect(shfRows(OP.SHR, 0xe0n)).toBe(16);
    expect(shfRows(OP.SHL, 1n << 128n)).toBe(1);
    expect(shfRows(OP.SAR, 1n << 128n)).toBe(16);
  });

  test('EXT (ExtOperation): 1 when trivial (MULMOD by 0, modulus ≤ 1), else 8', () => {
    expect(extRows(true, 0n, 0n, MAX)).toBe(1);
    expect(extRows(false, 1n, 2n, 1n)).toBe(1);
    expect(extRows(false, 0n, 0n, MAX)).toBe(8);
    expect(extRows(true, 2n, 3n, 5n)).toBe(8);
  });

  test('WCP (WcpOperation computeCtMax): 1 for two zeros or EQ/ISZERO, else the longest operand half', () => {
    expect(wcpRows(OP.LT, 0n, 0n)).toBe(1);
    expect(wcpRows(OP.LT, 1n, 1n << 128n)).toBe(1);
    expect(wcpRows(OP.LT, 1n << 255n, 5n)).toBe(16);
    expect(wcpRows(OP.LT, 0x1234n, 0n)).toBe(2);
    expect(wcpRows(OP.EQ, MAX, MAX)).toBe(1);
  });

  test('ROM (RomOperation): 16·ceil(size/16) + 32 per fragment; SimpleStorage deployed = 2368 rows', () => {
    expect(romRows(1153)).toBe(1200); // init code
    expect(romRows(1121)).toBe(1168); // runtime code
    expect(romRows(1153) + romRows(1121) + PROFILES.london.spillage.ROM).toBe(2369);
  });

  test('SHAKIRA_DATA, LOG_DATA, LOG_INFO, RLP_TXN_RCPT', () => {
    expect(shakiraRows(64)).toBe(6);
    expect(shakiraRows(1)).toBe(3);
    const log = { topics: 3, dataSize: 64 };
    expect(logDataRows([])).toBe(0);
    expect(logDataRows([log, { topics: 0, dataSize: 0 }])).toBe(4 + 1);
    expect(logInfoRows([])).toBe(1);
    expect(logInfoRows([log])).toBe(5);
    expect(rlpReceiptRows([])).toBe(84);
    expect(rlpReceiptRows([log])).toBe(83 + 8 + 12 + 9 + 8 + 4);
  });

  test('RLP_TXN (RlpTxnOperation), phase by phase', () => {
    const transfer = {
      type: 2,
      chainId: 59144n,
      nonce: 0n,
      gasPrice: 0n,
      maxPriorityFee: 1n,
      maxFee: 2n,
      isCreate: false,
      value: 0n,
      dataSize: 0,
      accessList: [],
      v: 0n,
      r: 1n,
      s: 1n,
    };
    // 17 + chainId 8 + nonce 1 + fees 8+8 + gas 8 + to 16 + value 1 + data 2 + access list 1 + y 1 + r 16 + s 16
    expect(rlpTxnRows(transfer)).toBe(103);
    // legacy (EIP-155 v > 28) with 33 bytes of data and a value: gasPrice 8, beta 8+9, data 8 + 48 + 2
    expect(rlpTxnRows({ ...transfer, type: 0, gasPrice: 1n, value: 1n, dataSize: 33, v: 118_323n })).toBe(
      17 + 1 + 8 + 8 + 16 + 16 + (8 + 48 + 2) + 17 + 16 + 16,
    );
    // access list: two addresses, one without keys, one with 2 keys
    expect(rlpTxnRows({ ...transfer, accessList: [0, 2] }) - rlpTxnRows(transfer)).toBe(8 + 25 + (24 + 8 + 32) - 1);
  });
});

test('an inactive counter counts nothing, and leaves the wrappers around its own in place', async () => {
  const vm = await createVM();
  const table = (vm.evm as unknown as { _opcodeMap: { opHandler: unknown }[] })._opcodeMap;
  const counter = new LineCounter(vm.evm, { tracer: 'london' });
  const wrapped = table[0x01].opHandler;
  const code = hexToBytes('0x600260010150600260030150');
  const run = async () => {
    await counter.begin();
    const result = await vm.evm.runCode({ code, gasLimit: 100_000n });
    return counter.end(undefined, { execResult: result } as never);
  };
  expect((await run()).ADD).toBe(2 + 2 + PROFILES.london.spillage.ADD);
  counter.setActive(false);
  expect(await run()).toEqual({});
  expect(table[0x01].opHandler).toBe(wrapped);
  counter.setActive(true);
  expect((await run()).ADD).toBe(2 + 2 + PROFILES.london.spillage.ADD);
});

describe('the conflation', () => {
  test('an operation counts once per conflation; a popped transaction leaves nothing behind', () => {
    const c = new Conflation(PROFILES.london);
    const base = c.counts().ADD;
    expect(base).toBe(PROFILES.london.spillage.ADD);
    c.addOnce('1:1:1', 'ADD', 2);
    c.addOnce('1:1:1', 'ADD', 2);
    expect(c.counts().ADD).toBe(base + 2);
    c.popTx();
    expect(c.counts().ADD).toBe(base);
    c.addOnce('1:1:1', 'ADD', 2);
    c.commitTx();
    c.addOnce('1:1:1', 'ADD', 2);
    expect(c.counts().ADD).toBe(base + 2);
  });

  test("a conflation starts with the profile's constant rows", () => {
    const london = new Conflation(PROFILES.london).counts();
    expect(london).toMatchObject({
      BIN_REFERENCE_TABLE: 196_864,
      SHF_REFERENCE_TABLE: 2304,
      INSTRUCTION_DECODER: 256,
      BLOCK_DATA: 13 + 6,
      EXT: 7,
      MUL: 1 + 8,
      WCP: 84 + 4 + 15,
    });
    const osaka = new Conflation(PROFILES.osaka).counts();
    expect(osaka).toMatchObject({ BLOCK_DATA: 14 + 6, EXT: 7 });
    expect(osaka.BIN).toBeUndefined();
  });
});

/**
 * Runs `code` as a call (with `call`'s data and gas) and returns its line counts under `profile` and
 * `counter`; `callee` is code at CALLEE.
 */
async function countsOf(
  profile: TracerProfileName,
  code: string,
  hardfork?: string,
  {
    callee,
    counter = 'tracer',
    call = {},
  }: { callee?: string; counter?: CounterName; call?: { data?: Uint8Array; gas?: bigint } } = {},
) {
  const chain = await Chain.create({ tracer: profile, hardfork, counter });
  try {
    const target = hexToBytes('0x00000000000000000000000000000000000c0de0');
    await chain.dev.setCode(target, hexToBytes(code));
    if (callee !== undefined) await chain.dev.setCode(hexToBytes(CALLEE), hexToBytes(callee));
    const result = await chain.calls.call({ from: chain.accounts[0].address, to: target, ...call }, chain.headNumber, {
      countLines: true,
    });
    return result.lineCounts as Record<string, number>;
  } finally {
    await chain.close();
  }
}

describe('the profiles on programs run through the chain', () => {
  // PUSH1 2, PUSH1 1, ADD, POP: ADD(1, 2) (top of stack first), then again, then ADD(3, 4); STOP.
  const ADDS = '0x600260010150' + '600260010150' + '600460030150' + '00';

  test('london: ADD rows by the formula, the repeated operation once', async () => {
    const counts = await countsOf('london', ADDS, 'london');
    expect(counts.ADD).toBe(2 + 2 + PROFILES.london.spillage.ADD);
  });

  test('osaka: one row per distinct arithmetic operation; no BIN', async () => {
    const counts = await countsOf('osaka', ADDS);
    expect(counts.ADD).toBe(1 + 1 + PROFILES.osaka.spillage.ADD);
    expect(counts.BIN).toBeUndefined();
    expect(counts.BLS_DATA).toBe(0);
  });

  test('an opcode that raises an exception reaches no arithmetic module', async () => {
    // The callee: PUSH1 1, ADD (stack underflow at ADD); the caller calls it and stops.
    const caller = `0x6000600060006000600073${CALLEE.slice(2)}5af15000`;
    const counts = await countsOf('london', caller, 'london', { callee: '0x600101' });
    expect(counts.ADD).toBe(PROFILES.london.spillage.ADD);
    // The same callee with its stack complete: ADD(1, 1) is 2 rows.
    const ok = await countsOf('london', caller, 'london', { callee: '0x6001600101' });
    expect(ok.ADD).toBe(2 + PROFILES.london.spillage.ADD);
    // The failed frame's exception: GAS rows for the CALL (3), the exceptional end (2), the caller's STOP (3).
    expect(counts.GAS).toBe(3 + 2 + 3 + PROFILES.london.spillage.GAS);
  });

  test('SHR by 0xe0 is 16 rows; KECCAK256 of 64 bytes is one hash of 6 rows', async () => {
    // PUSH1 0xff PUSH1 0xe0 SHR POP; PUSH1 0x40 PUSH1 0 SHA3 POP; STOP
    const counts = await countsOf('london', '0x60ff60e01c50' + '604060002050' + '00', 'london');
    expect(counts.SHF).toBe(16 + 15);
    expect(counts.SHAKIRA_DATA).toBe(6 + 1);
  });

  test('a precompile call: SHA256 of 32 bytes (SHAKIRA_DATA, SHA2 blocks, OOB for the CALL and the precompile)', async () => {
    // STATICCALL(gas, 0x02, args 0..32, ret 0..32), POP, STOP
    const counts = await countsOf('london', '0x60206000602060006002' + '5afa5000', 'london');
    expect(counts.SHAKIRA_DATA).toBe(2 + 2 + 1);
    expect(counts.PRECOMPILE_SHA2_BLOCKS).toBe(1); // (8·32 + 1 + 64 + 511) / 512
    expect(counts.OOB).toBe(3 + 4 + 5); // CALL 3 rows, SHA2 4 rows, spillage 5
    expect(counts.STP).toBe(5 + 4);
  });

  test('ECPAIRING with an input that is not a multiple of 192 bytes reaches no EC_DATA', async () => {
    // STATICCALL(gas, 0x08, args 0..1, ret 0..0)
    const counts = await countsOf('london', '0x60006000600160006008' + '5afa5000', 'london');
    expect(counts.EC_DATA).toBe(PROFILES.london.spillage.EC_DATA);
  });

  test('memory instructions by profile: MXP (London 4/4/1, Osaka 14/13/4), MMU, MMIO and Osaka HUB sections', async () => {
    // PUSH1 1 PUSH1 0 MSTORE; PUSH1 1 PUSH1 0 MSTORE8; MSIZE POP; STOP
    const code = '0x6001600052' + '6001600053' + '5950' + '00';
    const london = await countsOf('london', code, 'london');
    expect(london.MXP).toBe(4 + 4 + 1 + 3);
    expect(london.MMU).toBe(4 + 3 + 10);
    expect(london.MMIO).toBe(2 + 16);
    const osaka = await countsOf('osaka', code);
    expect(osaka.MXP).toBe(14 + 13 + 4 + 3);
    // ZkTracer's sections: PUSH1 ×4, POP: 1 each; MSTORE, MSTORE8, MSIZE: stack + IMC, 2 each; STOP
    // in a message call: 3; transaction init 8 and finalization 4; the EIP-4788 and EIP-2935 system
    // transactions at the block's start 5 + 4; spillage 12
    expect(osaka.HUB).toBe(5 + 6 + 3 + 8 + 4 + 9 + 12);
    expect(osaka.GAS).toBe(1 + 1);
    expect(osaka.TXN_DATA).toBe(17 + 3 + 3 + 8); // the user transaction, the two system ones before it
    expect(osaka.BLOCK_DATA).toBe(14 + 6);
  });

  test("London's WCP: every instruction's stack checks, and the four comparisons of every trimmed address", async () => {
    // STOP alone checks LT(0, 0) and GT(0, 1024); PUSH1 1 POP first adds GT(1, 1024) (2 rows: 1024
    // is 2 bytes) and LT(1, 1) (1 row); the rest repeats checks already made.
    const stop = await countsOf('london', '0x00', 'london');
    const pushPop = await countsOf('london', '0x60015000', 'london');
    expect(pushPop.WCP - stop.WCP).toBe(2 + 1);
    // BALANCE trims its address: LT(address, 2^160), ISZERO(address), LEQ(address, 9) and
    // LEQ(its word's high 12 bytes, 2^96 - 1), the last made already for the transaction's addresses.
    // A 20-byte address: 16 + 1 + 16 rows (its low half is 16 bytes); 0x01: 5 (2^160's high half
    // is 5 bytes) + 1 + 1.
    const wide = await countsOf('london', `0x73${'11'.repeat(20)}315000`, 'london');
    const narrow = await countsOf('london', `0x73${'00'.repeat(19)}01315000`, 'london');
    expect(wide.WCP - narrow.WCP).toBe(16 + 1 + 16 - (5 + 1 + 1));
    expect(wide.TRM).toBe(narrow.TRM);
  });

  test("London's WCP: the transaction's TXN_DATA comparisons, by their values", async () => {
    const chain = await Chain.create({ tracer: 'london', hardfork: 'london' });
    try {
      const to = chain.accounts[1].address;
      const wcp = async (fields: Parameters<typeof signedTx>[2]) =>
        (await chain.lines.transactionLineCounts(await signedTx(chain, 0, { to, value: 1n, ...fields })))!.WCP;
      // LEQ(intrinsic gas 21,000, gas limit): 2 rows at a limit of 21,000 (0x5208), 4 at 0x1000000.
      expect((await wcp({ type: 0, gasLimit: 0x1000000n })) - (await wcp({ type: 0, gasLimit: 21_000n }))).toBe(4 - 2);
      // An EIP-1559 transaction compares its tip and its tip plus the base fee with its fee cap too:
      // LEQ(1 gwei, 10 gwei) and LEQ(1 gwei + base fee, 10 gwei), 5 rows each (10 gwei is 5 bytes),
      // where a legacy one compares only the base fee with its price, as both compare their cap.
      expect((await wcp({ type: 2 })) - (await wcp({ type: 0 }))).toBe(5 + 5);
    } finally {
      await chain.close();
    }
  });

  test("London's WCP: the GAS module's comparisons at a STOP, of the gas left", async () => {
    const wcp = async (gas: bigint) => (await countsOf('london', '0x00', 'london', { call: { gas } })).WCP;
    // STOP with 100 gas left: LEQ(0, 100) and LT(100, 0), 1 row each; with 70,000 left, 3 each. The
    // gas limit's own comparison (LEQ(21,000, limit)) is 2 rows at 21,100 and 3 at 91,000.
    expect((await wcp(91_000n)) - (await wcp(21_100n))).toBe(2 * (3 - 1) + (3 - 2));
  });

  test("London's WCP and EUC: OOB's, MMU's and EUC's comparisons for a CALLDATALOAD", async () => {
    // PUSH1 0, CALLDATALOAD, POP, STOP
    const counts = (data: Uint8Array) =>
      countsOf('london', '0x6000355000', 'london', { call: { data, gas: 100_000n } });
    const [full, empty] = [await counts(new Uint8Array(36).fill(1)), await counts(new Uint8Array())];
    // With 36 bytes of call data, OOB's LT(0, 36), the MMU's LT(32, 36), LT(32, 16), LT(16, 17)
    // (twice, kept once) and ISZERO(16), the payload's ISZERO(36), and LT(4, 16) and LT(0, 16) for the
    // remainders of the MMU's divisions by 16: the call data's size 36 into memory, the first limb's 16
    // bytes and the offset 0 (that one's remainder is the first's); without, OOB's LT(0, 0) is a stack
    // check's already and the MMU does not run. The rest only changes values, not rows.
    expect(full.WCP - empty.WCP).toBe(1 + 4 + 1 + 2);
    // Those three divisions, one row each (quotients 2, 1, 0 and the divisor 16 are one byte or none).
    expect(full.EUC - empty.EUC).toBe(3);
  });

  test("London's EUC keeps one division per dividend as its caller's bytes, as Euc.java's keys are", async () => {
    const euc = async (code: string) =>
      (await countsOf('london', code, 'london', { call: { data: new Uint8Array(36).fill(1), gas: 100_000n } })).EUC;
    // PUSH1 0, CALLDATALOAD, POP: among its divisions, the first limb's 16 bytes (one byte) by 16.
    const load = '60003550';
    // Then MSTORE(16, 0) or MSTORE(32, 0): 16 as the MSTORE's 8 bytes is another dividend than the
    // CALLDATALOAD's one byte, though the same number, and 32 is new anyway; both one row (quotients 1, 2).
    const store = (offset: string) => `0x${load}600060${offset}5200`;
    const base = await euc(`0x${load}00`);
    expect([(await euc(store('10'))) - base, (await euc(store('20'))) - base]).toEqual([1, 1]);
  });

  test('BLOCKHASH, EXP, an address read and a CREATE2: BLOCK_HASH, EXP, MUL, TRM, RLP_ADDR, SHAKIRA_DATA, ROM, STP, GAS', async () => {
    const other = '11'.repeat(20);
    const code =
      '0x' +
      '60004050' + // PUSH1 0 BLOCKHASH POP
      '600360020a50' + // PUSH1 3 PUSH1 2 EXP POP: 2^3
      `73${other}3150` + // PUSH20 other BALANCE POP
      '6000600053' + // MSTORE8(0, 0): init code 0x00 (STOP)
      '6000600160006000f550' + // CREATE2(value 0, offset 0, size 1, salt 0) POP
      '00';
    const counts = await countsOf('london', code, 'london');
    const spill = PROFILES.london.spillage;
    expect(counts.BLOCK_HASH).toBe(6 + spill.BLOCK_HASH);
    expect(counts.EXP).toBe(18 + spill.EXP);
    expect(counts.MUL).toBe(1 + 8 * (2 + 2 - 1) + spill.MUL); // exponent 3 = 0b11
    // The sender, the recipient and the coinbase (the transaction's sections), the address read, the
    // address created.
    expect(counts.TRM).toBe(3 * 4 + 4 + 4 + spill.TRM);
    expect(counts.RLP_ADDR).toBe(6 + spill.RLP_ADDR);
    expect(counts.SHAKIRA_DATA).toBe(1 + 2 + spill.SHAKIRA_DATA); // CREATE2 init code, 1 byte
    const size = (code.length - 2) / 2;
    expect(counts.ROM).toBe(romRows(size) + romRows(1) + spill.ROM);
    expect(counts.ROM_LEX).toBe(2 + spill.ROM_LEX);
    expect(counts.STP).toBe(3 + spill.STP);
    expect(counts.GAS).toBe(3 + 3 + 3 + spill.GAS); // CREATE2, the init code's STOP, the caller's STOP
  });

  test('a signed transfer: BLOCK_L1_SIZE, BLOCK_KECCAK, RLP_TXN, TXN_DATA and the skipped HUB sections', async () => {
    const chain = await Chain.create({ tracer: 'london', hardfork: 'london' });
    try {
      const tx = await signedTx(chain, 0, { to: chain.accounts[1].address, value: 1n });
      const counts = (await chain.lines.transactionLineCounts(tx)) as Record<string, number>;
      const encoded = tx.serialize().length;
      const preimage = (tx.getMessageToSign() as Uint8Array).length;
      expect(counts.BLOCK_L1_SIZE).toBe(encoded + 20 + 38);
      expect(counts.BLOCK_KECCAK).toBe(Math.ceil(encoded / 136) + Math.ceil(preimage / 136) + 1);
      expect(counts.TXN_DATA).toBe(9 + 1 + PROFILES.london.spillage.TXN_DATA);
      expect(counts.HUB).toBe(4 + PROFILES.london.spillage.HUB); // TX_SKIP
      expect(counts.BLOCK_TRANSACTIONS).toBe(1);
      expect(counts.RLP_TXN).toBeGreaterThan(100);
      // TXN_DATA's division of the gas consumed by 5 (21,000 / 5 = 0x1068: two rows), beside the
      // conflation's 8 placeholder rows (TxndataOperation.java row 3, EucOperation.java).
      expect(counts.EUC).toBe(8 + 2 + PROFILES.london.spillage.EUC);
    } finally {
      await chain.close();
    }
  });

  test('a MODEXP call (2^3 mod 5): BLAKE_MODEXP_DATA, EXP, OOB and the effective-call counter, by profile', async () => {
    // sizes 1, 1, 1 and base 2, exponent 3, modulus 5 in memory; STATICCALL(gas, 0x05, 0..0x63, 0x100..0x120)
    const code =
      '0x' + '600160005260016020526001604052' + '600260605360036061536005606253' + '60206101006063600060055afa5000';
    const london = await countsOf('london', code, 'london');
    expect(london.BLAKE_MODEXP_DATA).toBe(128 + 1);
    expect(london.EXP).toBe(21 + 5); // the exponent's log
    expect(london.PRECOMPILE_MODEXP_EFFECTIVE_CALLS).toBe(1);
    expect(london.OOB).toBe(3 + (3 + 3 * 3 + 4 + 6 + 4) + 5); // CALL; CDS, XBS ×3, LEAD, PRICING, EXTRACT; spillage
    const osaka = await countsOf('osaka', code);
    expect(osaka.BLAKE_MODEXP_DATA).toBe(256 + 1);
    expect(osaka.PRECOMPILE_MODEXP_EFFECTIVE_CALLS).toBe(1);
    expect(osaka.PRECOMPILE_LARGE_MODEXP_EFFECTIVE_CALLS).toBe(0);
  });
  /**
   * SimulationValidatorTest (linea-monorepo cb180134, linea-besu/plugins/linea-sequencer/sequencer/src/
   * test/.../SimulationValidatorTest.java) expects HUB=18 from a ZkTracer(OSAKA) whose block starts on
   * a mocked world (the system contracts have no code: their sections leave out the storage rows)
   * and never ends (no traceEndBlock): 3 + 3 rows of EIP4788BeaconBlockRootSection and
   * EIP2935HistoricalHash, and the spillage, 12. A block of this chain has the contracts and ends:
   * 5 + 4 + 2 (SysfNoopSection) + 12 = 23.
   */
  test("an empty Osaka block's HUB: SimulationValidatorTest's 18 on its terms, 23 for a block of this chain", async () => {
    const chain = await Chain.create({ tracer: 'osaka' });
    try {
      const { counter } = chain.lines;
      const withCode = await counter.startBlock();
      expect([withCode.counts().HUB, withCode.counts(true).HUB]).toEqual([5 + 4 + 12, 5 + 4 + 2 + 12]);
      await chain.mine();
      expect((await chain.lines.blockLineCounts(chain.headNumber))?.totals.HUB).toBe(23);
      for (const address of [systemContractAddress(4788), systemContractAddress(2935)])
        await chain.dev.setCode(address, new Uint8Array());
      const mocked = await counter.startBlock();
      expect([mocked.counts().HUB, mocked.counts(true).HUB]).toEqual([18, 20]);
    } finally {
      await chain.close();
    }
  });
});

describe("the limitless counter (ZkCounter.java's rules)", () => {
  const limitlessCounts = (code: string, callee?: string) =>
    countsOf('osaka', code, undefined, { callee, counter: 'limitless' });

  test('per-instruction bounds, context exits, RIPEMD-160 by the byte, BLOCK_HASH history; unchecked modules 0', async () => {
    const code =
      '0x' +
      '6000600020' + // PUSH1 0 PUSH1 0 SHA3: an empty hash, still a word-priced memory update
      '50' + // POP
      '60004050' + // PUSH1 0 BLOCKHASH POP
      '6001600201' + // PUSH1 1 PUSH1 2 ADD
      '50' + // POP
      '602060006015600060035afa50' + // STATICCALL(gas, 0x03, 0, 21, 0, 32): 21 zero bytes to RIPEMD-160
      '00'; // STOP
    const counts = await limitlessCounts(code);
    const spill = LIMITLESS.spillage;
    // Instructions: PUSH1 ×2, SHA3 (2), POP; PUSH1, BLOCKHASH, POP; PUSH1 ×2, ADD, POP; PUSH1 ×5, GAS,
    // STATICCALL (14), POP; STOP in a message call (3). Then the precompile (4), two context exits,
    // transaction init + finalization (10 + 4), the block's system transactions (11).
    const instructions = 5 + 3 + 4 + 21 + 3;
    expect(counts.HUB).toBe(instructions + 4 + 2 + 14 + 11 + spill.HUB);
    expect(counts.GAS).toBe(1 + 2 + spill.GAS); // the STATICCALL, two context exits
    expect(counts.MXP).toBe(14 + 14 + spill.MXP);
    expect(counts.STP).toBe(1); // an IncrementingModule: no spillage
    expect(counts.BLOCK_HASH).toBe((256 + 1) * 6 + 6 + spill.BLOCK_HASH);
    expect(counts.PRECOMPILE_RIPEMD_BLOCKS).toBe(21);
    expect(counts.SHAKIRA_DATA).toBe(Math.ceil(21 / 16) + 2 + spill.SHAKIRA_DATA);
    for (const m of ['ADD', 'WCP', 'OOB', 'ROM', 'TRM', 'MMU', 'MMIO', 'RLP_TXN', 'PRECOMPILE_BLAKE_ROUNDS'])
      expect([m, counts[m]]).toEqual([m, 0]);
  });

  test('a deployment: CREATE2 bounds, the init code and address hashes, STOP in a deployment (5 rows)', async () => {
    // MSTORE8(0, 0): init code 0x00; CREATE2(0, 0, 1, 0) POP; STOP
    const counts = await limitlessCounts('0x6000600053' + '6000600160006000f550' + '00');
    // PUSH1 ×2, MSTORE8 (3); PUSH1 ×4, CREATE2 (11), POP; STOP (3); the init code's STOP in its
    // deployment (5); two context exits; 14; 11.
    expect(counts.HUB).toBe(5 + 16 + 3 + 5 + 2 + 14 + 11 + LIMITLESS.spillage.HUB);
    expect(counts.RLP_ADDR).toBe(6 + LIMITLESS.spillage.RLP_ADDR);
    expect(counts.SHAKIRA_DATA).toBe(1 + 2 + LIMITLESS.spillage.SHAKIRA_DATA);
    expect(counts.MXP).toBe(13 + 14 + LIMITLESS.spillage.MXP);
  });

  test('an instruction that fails for gas is counted as if it ran (tracePreExecution comes first)', async () => {
    // CALL(gas 100 or 30000, callee, 0, 0, 0, 0, 0) POP STOP; the callee: SSTORE(0, 1).
    const caller = (gas: string) => `0x600060006000600060007300${CALLEE.slice(4)}61${gas}f15000`;
    const starved = await limitlessCounts(caller('0064'), '0x6001600055');
    const fed = await limitlessCounts(caller('7530'), '0x6001600055');
    // SSTORE's 5 rows either way; only the fed callee reaches the end of its code (STOP, 3 rows).
    expect(fed.HUB - starved.HUB).toBe(3);
  });
});

describe("the order Linea's validator meets modules in (a Java HashMap's)", () => {
  test('osaka: as OpenJDK 17 iterates a HashMap<String, Integer> of the modules put in ZkTracer order', () => {
    // Printed by java.util.HashMap (OpenJDK 17.0.15) for Hub.getModulesToCount()'s keys, put in order.
    const java = [
      'EXT',
      'ADD',
      'LOG_INFO',
      'BLS_DATA',
      'MXP',
      'TXN_DATA',
      'WCP',
      'ROM_LEX',
      'PRECOMPILE_BLAKE_ROUNDS',
      'BLOCK_L1_SIZE',
      'LOG_DATA',
      'STP',
      'TRM',
      'PRECOMPILE_ECPAIRING_MILLER_LOOPS',
      'SHF',
      'PRECOMPILE_BLS_C1_MEMBERSHIP_CALLS',
      'EUC',
      'EC_DATA',
      'PRECOMPILE_ECADD_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS',
      'PRECOMPILE_MODEXP_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_G2_MSM_EFFECTIVE_CALLS',
      'MUL',
      'PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS',
      'RLP_AUTH',
      'PRECOMPILE_BLS_C2_MEMBERSHIP_CALLS',
      'PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS',
      'PRECOMPILE_BLS_G1_MEMBERSHIP_CALLS',
      'ROM',
      'PRECOMPILE_ECMUL_EFFECTIVE_CALLS',
      'MMU',
      'RLP_TXN_RCPT',
      'PRECOMPILE_BLS_POINT_EVALUATION_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_G2_ADD_EFFECTIVE_CALLS',
      'GAS',
      'PRECOMPILE_BLS_PAIRING_CHECK_MILLER_LOOPS',
      'PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS',
      'RLP_UTILS',
      'PRECOMPILE_BLS_G1_ADD_EFFECTIVE_CALLS',
      'SHAKIRA_DATA',
      'BLOCK_TRANSACTIONS',
      'PRECOMPILE_SHA2_BLOCKS',
      'HUB',
      'PRECOMPILE_LARGE_MODEXP_EFFECTIVE_CALLS',
      'PRECOMPILE_BLAKE_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_FINAL_EXPONENTIATIONS',
      'MMIO',
      'RLP_TXN',
      'BLOCK_KECCAK',
      'MOD',
      'OOB',
      'PRECOMPILE_RIPEMD_BLOCKS',
      'PRECOMPILE_BLS_G1_MSM_EFFECTIVE_CALLS',
      'BLOCK_DATA',
      'RLP_ADDR',
      'PRECOMPILE_BLS_MAP_FP2_TO_G2_EFFECTIVE_CALLS',
      'BLOCK_HASH',
      'BLOCK_L2_L1_LOGS',
      'PRECOMPILE_POINT_EVALUATION_FAILURE_EFFECTIVE_CALLS',
      'BLAKE_MODEXP_DATA',
      'EXP',
      'PRECOMPILE_P256_VERIFY_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_G2_MEMBERSHIP_CALLS',
    ];
    expect(PROFILES.osaka.modules).toEqual(java);
  });

  test('the first module over its limit is the first met: BLAKE2f reports ROUNDS before EFFECTIVE_CALLS', () => {
    const modules = PROFILES.osaka.modules;
    expect(modules.indexOf('PRECOMPILE_BLAKE_ROUNDS')).toBeLessThan(
      modules.indexOf('PRECOMPILE_BLAKE_EFFECTIVE_CALLS'),
    );
    // The limitless counter's map (sized, checked modules first) meets its checked modules in the same order.
    const checked = (list: readonly string[]) => list.filter((m) => !LIMITLESS.unchecked.has(m));
    expect(checked(LIMITLESS.modules)).toEqual(checked(PROFILES.osaka.modules));
    // ZkCounter's own map, sized: HashMap.newHashMap(63), which is new HashMap<>(ceil(63 / 0.75)), as
    // OpenJDK 17 iterates it.
    const java = [
      'EXT',
      'ADD',
      'LOG_INFO',
      'BLS_DATA',
      'MXP',
      'TXN_DATA',
      'WCP',
      'ROM_LEX',
      'PRECOMPILE_BLAKE_ROUNDS',
      'BLOCK_L1_SIZE',
      'LOG_DATA',
      'STP',
      'TRM',
      'PRECOMPILE_ECPAIRING_MILLER_LOOPS',
      'SHF',
      'PRECOMPILE_BLS_C1_MEMBERSHIP_CALLS',
      'EUC',
      'EC_DATA',
      'PRECOMPILE_ECADD_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS',
      'PRECOMPILE_MODEXP_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_G2_MSM_EFFECTIVE_CALLS',
      'PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS',
      'MUL',
      'RLP_AUTH',
      'PRECOMPILE_BLS_C2_MEMBERSHIP_CALLS',
      'PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS',
      'PRECOMPILE_BLS_G1_MEMBERSHIP_CALLS',
      'ROM',
      'PRECOMPILE_ECMUL_EFFECTIVE_CALLS',
      'MMU',
      'RLP_TXN_RCPT',
      'PRECOMPILE_BLS_POINT_EVALUATION_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_G2_ADD_EFFECTIVE_CALLS',
      'GAS',
      'PRECOMPILE_BLS_PAIRING_CHECK_MILLER_LOOPS',
      'PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS',
      'RLP_UTILS',
      'PRECOMPILE_BLS_G1_ADD_EFFECTIVE_CALLS',
      'SHAKIRA_DATA',
      'BLOCK_TRANSACTIONS',
      'PRECOMPILE_SHA2_BLOCKS',
      'HUB',
      'PRECOMPILE_LARGE_MODEXP_EFFECTIVE_CALLS',
      'PRECOMPILE_BLAKE_EFFECTIVE_CALLS',
      'PRECOMPILE_BLS_FINAL_EXPONENTIATIONS',
      'BLOCK_KECCAK',
      'MMIO',
      'RLP_TXN',
      'MOD',
      'OOB',
      'PRECOMPILE_RIPEMD_BLOCKS',
      'PRECOMPILE_BLS_G1_MSM_EFFECTIVE_CALLS',
      'BLOCK_DATA',
      'RLP_ADDR',
      'PRECOMPILE_BLS_MAP_FP2_TO_G2_EFFECTIVE_CALLS',
      'BLOCK_HASH',
      'BLOCK_L2_L1_LOGS',
      'PRECOMPILE_POINT_EVALUATION_FAILURE_EFFECTIVE_CALLS',
      'BLAKE_MODEXP_DATA',
      'PRECOMPILE_P256_VERIFY_EFFECTIVE_CALLS',
      'EXP',
      'PRECOMPILE_BLS_G2_MEMBERSHIP_CALLS',
    ];
    expect(LIMITLESS.modules).toEqual(java);
  });
});
