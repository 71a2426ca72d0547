import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The command-line tests run the built, bundled command: build it first (tsc is incremental). */
export default function globalSetup(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/l2devnet'], {
    cwd: __dirname,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, [join(__dirname, 'scripts', 'bundle.js')], { cwd: __dirname, stdio: 'inherit' });
}
