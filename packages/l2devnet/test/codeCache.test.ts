/**
 * The command's code cache (bin/l2devnet.js): V8 takes a cache made for another source of the same
 * length, so a run that writes the cache must compile from the source, not from the cache it is
 * about to replace.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(__dirname, '..', 'bin', 'l2devnet.js');

test('a bundle rebuilt to the same length runs its new code, with the cache written again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-cache-'));
  try {
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(BIN, join(dir, 'bin', 'l2devnet.js'));
    const run = (write: boolean) =>
      execFileSync(process.execPath, [join(dir, 'bin', 'l2devnet.js')], {
        env: { ...process.env, L2DEVNET_WRITE_CODE_CACHE: write ? '1' : '' },
        encoding: 'utf8',
      });
    // Two builds of the same length.
    const build = (word: string) => `function f() { return '${word}'; }\nconsole.log(f());\n`;
    writeFileSync(join(dir, 'dist', 'l2devnet.js'), build('old'));
    expect(run(true)).toBe('old\n');
    expect(run(false)).toBe('old\n');
    writeFileSync(join(dir, 'dist', 'l2devnet.js'), build('new'));
    expect(run(true)).toBe('new\n');
    expect(run(false)).toBe('new\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
