import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LineLimits } from './lineLimits';
import { PROFILES } from './lineProfiles';

const LIMITS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'limits');
const production = readFileSync(join(LIMITS, 'linea-mainnet.toml'), 'utf8');

test('the file Linea ships for mainnet loads with the osaka tracer, every module it counts given', () => {
  const limits = LineLimits.fromFile(join(LIMITS, 'linea-mainnet.toml'), 'osaka');
  expect(Object.keys(limits.limits).sort()).toEqual([...PROFILES.osaka.modules].sort());
  expect(limits.limits).toMatchObject({ BLS_DATA: 131_072, RLP_AUTH: 16_384, BLOCK_L1_SIZE: 120_000 });
  expect(limits.warnings).toEqual([]);
});

test('each profile refuses a file made for the other, naming the first module it lacks', () => {
  expect(() => LineLimits.fromFile(join(LIMITS, 'linea-mainnet.toml'), 'london')).toThrow(
    'module BIN, counted by the london tracer, has no limit (MODULE_NOT_DEFINED)',
  );
  expect(() => LineLimits.fromFile(join(LIMITS, 'linea-sequencer-acceptance-tx-overflow.toml'), 'osaka')).toThrow(
    'module BLS_DATA, counted by the osaka tracer, has no limit (MODULE_NOT_DEFINED)',
  );
});

test('a London-era file without GAS is refused by the london tracer, as the real sequencer refuses it', () => {
  const london = readFileSync(join(LIMITS, 'linea-london.toml'), 'utf8');
  expect(() => LineLimits.parse(london.replace(/^GAS *=.*$/m, ''), 'limits.toml', 'london')).toThrow(
    'limits file limits.toml: module GAS, counted by the london tracer, has no limit (MODULE_NOT_DEFINED)',
  );
  expect(LineLimits.parse(london, 'linea-london.toml', 'london').warnings).toEqual([]);
});

test("the sequencer acceptance tests' file loads as the sequencer reads it: a repeated key and uncounted keys are let through", () => {
  const file = join(LIMITS, 'linea-sequencer-acceptance-tx-overflow.toml');
  const limits = LineLimits.fromFile(file, 'london');
  expect(limits.limits).toMatchObject({
    ADD: 70,
    EXT: 20,
    ROM: 2402,
    SHF: 20,
    WCP: 306,
    PRECOMPILE_ECPAIRING_MILLER_LOOPS: 10_000,
  });
  expect(Object.keys(limits.limits).sort()).toEqual([...PROFILES.london.modules].sort());
  expect(limits.warnings).toEqual([
    `limits file ${file}: line 73: PRECOMPILE_ECPAIRING_MILLER_LOOPS is given again; the first value is kept`,
    `limits file ${file}: ignoring keys the line counter does not count: PHONEY_RLP, TX_RLP`,
  ]);
});

test('a repeated key keeps its first value', () => {
  const limits = LineLimits.parse(production.replace(/^ADD /m, 'ADD = 5\nADD '), 'f.toml');
  expect(limits.limits.ADD).toBe(5);
  const line = production.split('\n').findIndex((l) => l.startsWith('ADD')) + 2;
  expect(limits.warnings).toEqual([`limits file f.toml: line ${line}: ADD is given again; the first value is kept`]);
});

test.each([
  [
    production.replace(/^ADD *=.*$/m, ''),
    'limits file f.toml: module ADD, counted by the osaka tracer, has no limit (MODULE_NOT_DEFINED)',
  ],
  [production.replace(/^ADD *=.*$/m, 'ADD = -1'), 'limits file f.toml: ADD must be an integer of at least 0; got -1'],
  [
    production.replace(/^ADD *=.*$/m, 'ADD = "many"'),
    'limits file f.toml: ADD must be an integer of at least 0; got many',
  ],
  [production.replace(/^ADD *=.*$/m, 'ADD = = 1'), /^limits file f\.toml: line \d+: Invalid TOML document/],
  ['[other]\nADD = 1\n', 'limits file f.toml: missing [traces-limits] table'],
])('a file the sequencer would not start with is refused, saying why (%#)', (text, message) => {
  expect(() => LineLimits.parse(text, 'f.toml')).toThrow(message);
});
