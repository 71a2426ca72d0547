import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Level } from 'level';

import { runCommand, runToEnd } from './command';

/** A node that cannot open its data directory says why in one line, exits 2, and prints no stack. */
function expectRefusal(result: { code: number | null; stderr: string }, message: string | RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-datadir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a data dir that is a file', async () => {
  const file = join(dir, 'chain');
  writeFileSync(file, 'not a directory');
  expectRefusal(await runToEnd(['--data-dir', file, '--port', '0']), `error: ${file} is not a directory`);
  expectRefusal(await runToEnd(['--data-dir', join(file, 'below'), '--port', '0']), 'is not a directory');
  expect(readFileSync(file, 'utf8')).toBe('not a directory');
});

test('a data dir this user cannot write', async () => {
  const data = join(dir, 'readonly');
  mkdirSync(data);
  chmodSync(dir, 0o755);
  chmodSync(data, 0o555);
  // Permissions do not bind root: then the node runs as the unprivileged user `nobody`.
  const asUser = process.getuid?.() === 0 ? { uid: 65534 } : {};
  expectRefusal(
    await runToEnd(['--data-dir', data, '--port', '0'], asUser),
    `error: permission denied: ${data} is not writable by this user`,
  );
});

test('a second node on the same data dir names the process that holds it', async () => {
  const first = await runCommand(['--data-dir', dir, '--port', '0']);
  try {
    expectRefusal(
      await runToEnd(['--data-dir', dir, '--port', '0']),
      `error: the database in ${dir} is in use by another l2devnet (process ${first.child.pid}): stop it`,
    );
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
  // Once the first has stopped, the directory opens again.
  const again = await runCommand(['--data-dir', dir, '--port', '0']);
  again.child.kill('SIGTERM');
  expect((await again.exited).code).toBe(0);
});

test('a corrupt database says so and how to recover', async () => {
  const first = await runCommand(['--data-dir', dir, '--port', '0']);
  first.child.kill('SIGTERM');
  await first.exited;
  const manifest = join(dir, readdirSync(dir).find((f) => f.startsWith('MANIFEST-')) as string);
  const bytes = readFileSync(manifest);
  for (let i = 10; i < bytes.length; i++) bytes[i] ^= 0x55;
  writeFileSync(manifest, bytes);
  expectRefusal(
    await runToEnd(['--data-dir', dir, '--port', '0']),
    /^error: the database in .* is corrupt \(Corruption: .*\); its chain cannot be read: move the directory aside/,
  );
});

test('a LevelDB database that holds no readable chain', async () => {
  const db = new Level<string, string>(dir);
  await db.put('mconfig', '{ not json');
  await db.close();
  expectRefusal(
    await runToEnd(['--data-dir', dir, '--port', '0']),
    `error: the database in ${dir} cannot be read as an l2devnet chain`,
  );
});
