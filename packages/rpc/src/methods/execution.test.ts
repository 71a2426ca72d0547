/** Simulated execution: the methods of methods/execution.ts, on a node with a short history (seededTestRpc). */
import {
  ALICE,
  BOB,
  COUNT,
  INCREMENT,
  ZERO32,
  deploy,
  fixtureContract,
  seededTestRpc,
  withTestRpc,
} from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const reverter = fixtureContract('Reverter');

let t: TestRpc;
let counterAddress: string;
let deployBlock: string;
beforeAll(async () => {
  ({ t, counterAddress, deployBlock } = await seededTestRpc());
});
afterAll(() => t.close());

test('eth_call runs at any block, caps gas and reports reverts with code 3', async () => {
  expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'latest')).toBe(
    `0x${'0'.repeat(63)}1`,
  );
  expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'safe')).toBe(
    `0x${'0'.repeat(63)}1`,
  );
  expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, deployBlock)).toBe(ZERO32);
  expect(
    await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT, gas: '0xffffffffffff' }, 'latest'),
  ).toBe(`0x${'0'.repeat(63)}1`);
  expect(await t.call('eth_call', { from: ALICE, to: BOB }, 'latest')).toBe('0x');
  const rev = await deploy(t, reverter.bytecode);
  expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x5b2dd100' }, 'latest')).toEqual({
    code: 3,
    message: 'execution reverted: nope',
    data: '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000',
  });
  expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x33fe3fbd' }, 'latest')).toEqual({
    code: 3,
    message: 'execution reverted: arithmetic underflow or overflow',
    data: `0x4e487b71${'0'.repeat(62)}11`,
  });
  expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x0e64d54c' }, 'latest')).toEqual({
    code: 3,
    message: 'execution reverted',
    data: `0xcb362b34${'0'.repeat(62)}2a`,
  });
});

test('eth_estimateGas to every precompile answers what geth bisects to, and that much gas is enough', async () => {
  // 21,000 plus the precompile's price for an empty input, bracketed as geth's gasestimator.go does.
  const expected: Record<string, number> = {
    '01': 24338, // ecrecover, 3,000
    '02': 21225, // sha256, 60
    '03': 21766, // ripemd160, 600
    '04': 21180, // identity, 15
    '05': 21666, // modexp, 500 (EIP-7883)
    '06': 21316, // bn254 add, 150
    '07': 27344, // bn254 mul, 6,000
    '08': 66845, // bn254 pairing, 45,000
    '0100': 28246, // P256VERIFY, 6,900
  };
  for (const [suffix, gas] of Object.entries(expected)) {
    const to = `0x${suffix.padStart(40, '0')}`;
    expect(await t.call('eth_estimateGas', { from: ALICE, to })).toBe(`0x${gas.toString(16)}`);
    expect(await t.call('eth_estimateGas', { from: ALICE, to, value: '0x1' })).toBe(`0x${gas.toString(16)}`);
  }
  // An empty input is refused by blake2f, the KZG point evaluation and the BLS12-381 precompiles:
  // the estimate fails as the call does.
  for (const n of [0x09, 0x0a, 0x0b, 0x0f, 0x11]) {
    const to = `0x${n.toString(16).padStart(40, '0')}`;
    const err = await t.fail('eth_estimateGas', { from: ALICE, to });
    expect(err).toEqual(await t.fail('eth_call', { from: ALICE, to }, 'latest'));
    expect(err.code).toBe(-32000);
  }
  // Linea's sequencer refuses a precompile as a transaction's recipient; under Ethereum's rules
  // that much gas is enough.
  const transfer = {
    from: ALICE,
    to: `0x${'02'.padStart(40, '0')}`,
    value: '0x1',
    gas: `0x${expected['02'].toString(16)}`,
  };
  expect(await t.fail('eth_sendTransaction', transfer)).toEqual({
    code: -32000,
    message: 'destination address is a precompile address and cannot receive transactions',
  });
  await withTestRpc({ sequencerRules: false }, async (ethereum) => {
    const hash = await ethereum.call<string>('eth_sendTransaction', transfer);
    const receipt = await ethereum.call<{ status: string; gasUsed: string }>('eth_getTransactionReceipt', hash);
    expect(receipt).toMatchObject({ status: '0x1', gasUsed: `0x${(21_060).toString(16)}` });
  });
});

test('eth_call: the precompiles are warm, as in a transaction (EIP-2929), and another address is cold', async () => {
  // GAS, BALANCE(address), POP, GAS: returns the gas between the two GAS reads (3 + BALANCE + 2 + 2).
  const balanceCost = async (address: number) =>
    Number(
      await t.call(
        'eth_call',
        { from: ALICE, data: `0x5a60${address.toString(16).padStart(2, '0')}31505a900360005260206000f3` },
        'latest',
      ),
    );
  for (let address = 1; address <= 10; address++) expect(await balanceCost(address)).toBe(7 + 100);
  expect(await balanceCost(0x42)).toBe(7 + 2600);
});

test('eth_call accepts state overrides', async () => {
  const override = { [counterAddress]: { stateDiff: { [ZERO32]: `0x${'0'.repeat(62)}2a` } } };
  expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'latest', override)).toBe(
    `0x${'0'.repeat(62)}2a`,
  );
  expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'latest')).toBe(`0x${'0'.repeat(63)}1`);
});

test('eth_estimateGas and eth_createAccessList', async () => {
  const gas = BigInt(await t.call<string>('eth_estimateGas', { from: ALICE, to: counterAddress, data: INCREMENT }));
  expect(gas).toBeGreaterThan(26_000n);
  expect(gas).toBeLessThan(40_000n);
  expect(await t.call('eth_estimateGas', { from: ALICE, to: BOB, value: '0x1' })).toBe('0x5208');
  const list = await t.call<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: string }>(
    'eth_createAccessList',
    { from: ALICE, to: counterAddress, data: INCREMENT },
  );
  expect(list.accessList).toEqual([{ address: counterAddress, storageKeys: [ZERO32] }]);
});
