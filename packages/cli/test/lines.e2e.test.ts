import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runToEnd } from './command';

const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as { bytecode: string };
const INCREMENT = '0xd09de08a';
const COUNT = '0x06661abd';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

let dir: string;
let snapshot: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-lines-'));
  snapshot = join(dir, 'lines.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function jsonScenario(): string {
  const file = join(dir, 'scenario.json');
  const steps = [
    { name: 'deploy Counter', send: { data: counter.bytecode }, as: 'counter' },
    { name: 'increment', send: { from: 1, to: '$counter', data: INCREMENT } },
    { name: 'count', call: { to: '$counter', data: COUNT } },
  ];
  writeFileSync(file, JSON.stringify({ steps }));
  return file;
}

const readSnapshot = () => JSON.parse(readFileSync(snapshot, 'utf8')) as Record<string, Record<string, number>>;

test('records each named step, and --check passes on an unchanged run', async () => {
  const scenario = jsonScenario();
  const written = await runToEnd(['lines', scenario, '--snapshot', snapshot]);
  expect(written).toMatchObject({ code: 0, stderr: '' });
  expect(written.stdout).toBe(`wrote the line counts of 3 calls and transactions to ${snapshot}\n`);
  const counts = readSnapshot();
  expect(Object.keys(counts)).toEqual(['count', 'deploy Counter', 'increment']);
  // The deployment runs its init code, and encodes the code in its transaction.
  expect(counts['deploy Counter'].ROM).toBeGreaterThan(counts.increment.ROM);
  expect(counts['deploy Counter'].RLP_TXN).toBeGreaterThan(counts.increment.RLP_TXN);
  expect(counts.increment.ADD).toBeGreaterThan(0);
  expect(counts.count.HUB).toBeGreaterThan(0);
  const checked = await runToEnd(['lines', scenario, '--snapshot', snapshot, '--check']);
  expect(checked).toMatchObject({ code: 0, stderr: '' });
  expect(checked.stdout).toBe(`line counts match ${snapshot} (3 entries, tolerance 0%)\n`);
});

test('--check fails with a diff table when a module grows past the tolerance', async () => {
  const scenario = jsonScenario();
  await runToEnd(['lines', scenario, '--snapshot', snapshot]);
  const counts = readSnapshot();
  const hub = counts.increment.HUB;
  // As if the contract had become 10 % heavier on HUB since the snapshot.
  counts.increment.HUB = Math.round(hub / 1.1);
  writeFileSync(snapshot, JSON.stringify(counts));
  const failed = await runToEnd(['lines', scenario, '--snapshot', snapshot, '--check', '--tolerance', '5']);
  expect(failed.code).toBe(1);
  const lines = failed.stdout.trim().split('\n');
  expect(lines[0].split(/\s+/)).toEqual(['name', 'module', 'snapshot', 'now', 'change']);
  expect(lines[1].split(/\s+/)).toEqual([
    'increment',
    'HUB',
    String(counts.increment.HUB),
    String(hub),
    expect.stringMatching(/^\+\d+\.\d%$/),
    'FAIL',
  ]);
  expect(lines[2]).toBe(`1 module count(s) grew past the tolerance of 5% (snapshot ${snapshot})`);
  // Within a wider tolerance the same growth passes, and is still shown.
  const passed = await runToEnd(['lines', scenario, '--snapshot', snapshot, '--check', '--tolerance', '20']);
  expect(passed.code).toBe(0);
  expect(passed.stdout).toContain('increment  HUB');
  expect(passed.stdout).not.toContain('FAIL');
});

test('a JavaScript scenario names its own steps', async () => {
  const file = join(dir, 'scenario.js');
  writeFileSync(
    file,
    `module.exports = async ({ send, call, accounts }) => {
      const { contractAddress } = await send('deploy', { data: ${JSON.stringify(counter.bytecode)} });
      await send('increment', { from: accounts[2], to: contractAddress, data: '${INCREMENT}' });
      if ((await call('count', { to: contractAddress, data: '${COUNT}' })) !== '0x${'0'.repeat(63)}1') throw new Error('count');
    };\n`,
  );
  expect((await runToEnd(['lines', file, '--snapshot', snapshot])).code).toBe(0);
  expect(Object.keys(readSnapshot())).toEqual(['count', 'deploy', 'increment']);
});

test.each([
  [['lines'], 'error: lines needs a scenario file and --snapshot FILE'],
  [['lines', 'x.json', '--snapshot', 'y.json', '--tolerance', 'lots'], '--tolerance must be a percentage'],
])('bad arguments %j exit 2 and say why', async (args, message) => {
  const result = await runToEnd(args);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
});

test('a scenario step that fails names the step; --check without a snapshot says so', async () => {
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ steps: [{ name: 'broken', send: { to: '$nothing' } }] }));
  const result = await runToEnd(['lines', file, '--snapshot', snapshot]);
  expect(result).toMatchObject({ code: 2, stderr: `error: scenario ${file}: no step created "$nothing"\n` });
  writeFileSync(file, JSON.stringify({ steps: [{ name: 'too little gas', send: { to: BOB, gas: '0x1' } }] }));
  const refused = await runToEnd(['lines', file, '--snapshot', snapshot]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^error: scenario .*: "too little gas": intrinsic gas too low/);
  const missing = await runToEnd(['lines', jsonScenario(), '--snapshot', snapshot, '--check']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`--check: no snapshot at ${snapshot}; run without --check first`);
});

test('--tracer london counts the scenario with the London-era tracer (BIN, reference tables)', async () => {
  const scenario = jsonScenario();
  const london = await runToEnd(['lines', scenario, '--snapshot', snapshot, '--tracer', 'london']);
  expect(london).toMatchObject({ code: 0, stderr: '' });
  expect(readSnapshot().increment).toMatchObject({ BIN_REFERENCE_TABLE: 196_864 });
  const osaka = await runToEnd(['lines', scenario, '--snapshot', snapshot]);
  expect(osaka.code).toBe(0);
  expect(readSnapshot().increment.BIN_REFERENCE_TABLE).toBeUndefined();
  const bad = await runToEnd(['lines', scenario, '--snapshot', snapshot, '--tracer', 'berlin']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--tracer must be one of london, osaka; got "berlin"');
});
