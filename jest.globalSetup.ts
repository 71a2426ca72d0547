import { execFileSync } from 'node:child_process';

/** The command-line tests run the built command; build it (incrementally) first. */
export default function globalSetup(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/cli'], { cwd: __dirname, stdio: 'inherit' });
}
