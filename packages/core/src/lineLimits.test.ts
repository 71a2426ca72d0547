import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LineLimits } from './lineLimits';
import { MODULES } from './lineModules';

const LIMITS = join(__dirname, '..', '..', '..', 'fixtures', 'limits');
const production = readFileSync(join(LIMITS, 'production.toml'), 'utf8');

test("the sequencer acceptance tests' file loads as the sequencer reads it: a repeated key and uncounted keys are let through", () => {
  const file = join(LIMITS, 'linea-sequencer-acceptance-tx-overflow.toml');
  const limits = LineLimits.fromFile(file);
  expect(limits.limits).toMatchObject({
    ADD: 70,
    EXT: 20,
    ROM: 2402,
    SHF: 20,
    WCP: 306,
    PRECOMPILE_ECPAIRING_MILLER_LOOPS: 10_000,
  });
  expect(Object.keys(limits.limits).sort()).toEqual([...MODULES].sort());
  expect(limits.warnings).toEqual([
    `limits file ${file}: line 73: PRECOMPILE_ECPAIRING_MILLER_LOOPS is given again; the first value is kept`,
    `limits file ${file}: ignoring keys the line counter does not count: GAS, PHONEY_RLP, TX_RLP`,
  ]);
});

test('a repeated key keeps its first value', () => {
  const limits = LineLimits.parse(production.replace('ADD = ', 'ADD = 5\nADD = '), 'f.toml');
  expect(limits.limits.ADD).toBe(5);
  expect(limits.warnings).toEqual([`limits file f.toml: line 5: ADD is given again; the first value is kept`]);
});

test('the production file loads without a warning', () => {
  expect(LineLimits.parse(production, 'production.toml').warnings).toEqual([]);
});

test.each([
  [production.replace(/^ADD *=.*$/m, ''), 'limits file f.toml: module ADD has no limit (MODULE_NOT_DEFINED)'],
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
