import { parseDuration, parseEther } from './units';

test.each([
  ['10000', 10_000n * 10n ** 18n],
  ['0.5', 5n * 10n ** 17n],
  ['1.000000000000000001', 10n ** 18n + 1n],
  ['1.0000000000000000001', undefined],
  ['-1', undefined],
  ['1e18', undefined],
  ['', undefined],
])('parseEther(%j) is %s wei', (text, wei) => {
  expect(parseEther(text)).toBe(wei);
});

test.each([
  ['5s', false, 5_000],
  ['500ms', false, 500],
  ['1.5s', false, 1_500],
  ['2m', false, 120_000],
  ['0', true, 0],
  ['7', true, 7_000],
  ['7', false, undefined],
  ['5 seconds', true, undefined],
  ['1e3s', true, undefined],
  [`${2 ** 53}s`, true, undefined],
])('parseDuration(%j, bare seconds %s) is %s ms', (text, bareSeconds, ms) => {
  expect(parseDuration(text, bareSeconds)).toBe(ms);
});
