import { Common, Mainnet } from '@ethereumjs/common';
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

import { forkConfigs } from './forkConfig';

// Mainnet's genesis: what the fork id starts from.
const genesis = {
  hash: () => hexToBytes('0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3'),
  timestamp: 0n,
} as unknown as BlockHeader;

test("mainnet's fork ids, activation times and blob schedules are go-ethereum's (core/forkid/forkid_test.go)", () => {
  const common = new Common({ chain: Mainnet });
  // The first Osaka block: current Osaka, next BPO1, last BPO2.
  const at = forkConfigs(common, true, genesis, 1_764_798_551n);
  expect(bytesToHex(at.current!.forkId)).toBe('0x5167e2a6');
  expect(bytesToHex(at.next!.forkId)).toBe('0xcba2a1c0');
  expect(bytesToHex(at.last!.forkId)).toBe('0x07c9462e');
  expect(at.current!.activationTime).toBe(1_764_798_551n);
  expect(at.next!.blobSchedule).toEqual({ target: 10n, max: 15n, baseFeeUpdateFraction: 8_346_193n });
  expect(Object.keys(at.current!.precompiles)).toContain('P256VERIFY');
  expect(Object.keys(at.current!.systemContracts).sort()).toEqual([
    'BEACON_ROOTS_ADDRESS',
    'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS',
    'DEPOSIT_CONTRACT_ADDRESS',
    'HISTORY_STORAGE_ADDRESS',
    'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS',
  ]);
  // The last Cancun second and the first Prague one.
  expect(bytesToHex(forkConfigs(common, true, genesis, 1_746_612_310n).current!.forkId)).toBe('0x9f3d2254');
  const prague = forkConfigs(common, true, genesis, 1_746_612_311n).current!;
  expect(bytesToHex(prague.forkId)).toBe('0xc376cf8b');
  expect(prague.precompiles.P256VERIFY).toBeUndefined();
  // Shanghai: no blobs yet.
  const shanghai = forkConfigs(common, true, genesis, 1_681_338_455n).current!;
  expect(bytesToHex(shanghai.forkId)).toBe('0xdce96c2d');
  expect(shanghai.blobSchedule).toBeNull();
  // After the last scheduled fork, nothing is next and nothing is last.
  const latest = forkConfigs(common, true, genesis, 2_000_000_000n);
  expect(bytesToHex(latest.current!.forkId)).toBe('0x07c9462e');
  expect(latest.next).toBeNull();
  expect(latest.last).toBeNull();
  // Before Shanghai there is no current fork with a time.
  expect(forkConfigs(common, true, genesis, 1_600_000_000n).current).toBeNull();
});
