/**
 * Foundry's cast against the node (the binary from the npm package @foundry-rs/cast-linux-amd64):
 * `cast run --quick` replays a mined transaction and `cast call --trace` a call, each printing its
 * call tree from what the node serves.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { rpcCall, runCommand } from './command';
import type { RunningCommand } from './command';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { traceFlow } = require('../../../scripts/trace-flow.js') as {
  traceFlow(url: string): Promise<Record<string, unknown>>;
};

const CAST = join(__dirname, '..', '..', '..', 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
const run = promisify(execFile);

describe('cast', () => {
  let node: RunningCommand;
  let flow: Record<string, unknown>;
  beforeAll(async () => {
    node = await runCommand(['--in-memory', '--port', '0', '--hardfork', 'prague']);
    flow = await traceFlow(node.url);
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
  });

  test('cast run --quick replays a mined transaction and prints its call tree', async () => {
    const [traced] = flow['block of run: callTracer'] as { txHash: string }[];
    const receipt = (await rpcCall(node.url, 'eth_getTransactionReceipt', [traced.txHash])).result;
    const { stdout } = await run(CAST, ['run', '--quick', traced.txHash, '--rpc-url', node.url], { timeout: 60_000 });
    expect(stdout).toContain('::a444f5e9(0000000000000000000000000000000000000000000000000000000000000005)');
    expect(stdout).toContain('[Revert] child says no');
    expect(stdout).toContain('[delegatecall]');
    expect(stdout).toContain('PRECOMPILES::sha256(');
    expect(stdout).toContain('→ new <unknown>@');
    expect(stdout).toContain(`Gas used: ${BigInt(receipt.gasUsed)}`);
  });

  test('cast call --trace prints a call tree', async () => {
    const to = (flow['run: callTracer'] as { to: string }).to;
    const { stdout } = await run(
      CAST,
      [
        'call',
        '--trace',
        to,
        'run(uint256)',
        '7',
        '--from',
        '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        '--rpc-url',
        node.url,
      ],
      { timeout: 60_000 },
    );
    expect(stdout).toContain('::a444f5e9(0000000000000000000000000000000000000000000000000000000000000007)');
    expect(stdout).toContain('[Revert] child says no');
    expect(stdout).toMatch(/└─ ← \[Return\] 0x[0-9a-f]{64}/);
  });
});
