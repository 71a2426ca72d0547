/** A call's intrinsic gas worked out from the request is the transaction's, on every fork it works it out for. */
import { devCommon, SUPPORTED_HARDFORKS } from '../config/genesis';
import { callIntrinsicGas, callTransaction, intrinsicGasParts } from './intrinsicGas';

const TO = new Uint8Array(20).fill(0x11);
const DATA = [
  new Uint8Array(0),
  Uint8Array.of(0, 0, 0, 0),
  Uint8Array.of(0x70, 0xa0, 0x82, 0x31, ...new Array<number>(12).fill(0), ...new Array<number>(20).fill(0xab)),
  new Uint8Array(1000).map((_, i) => (i % 3 === 0 ? 0 : i)),
];

/** The forks a dev chain can be made on (ethereumjs names bpo3 to bpo5 without scheduling them on mainnet). */
const FORKS = SUPPORTED_HARDFORKS.filter((fork) => {
  try {
    return devCommon(1n, fork) !== undefined;
  } catch {
    return false;
  }
});

test.each(FORKS)('%s: as ethereumjs prices the transaction the call would be', (fork) => {
  const common = devCommon(1n, fork);
  for (const data of DATA)
    for (const value of [0n, 1n]) {
      const req = { to: TO, data, value };
      // The forks whose EIPs price the recipient or the access list's bytes are left to the transaction.
      const later = common.isActivatedEIP(2780) || common.isActivatedEIP(7981);
      expect(callIntrinsicGas(common, req)).toEqual(
        later ? undefined : intrinsicGasParts(callTransaction(common, req)),
      );
    }
});

test('leaves creations, access lists and values past 256 bits to the transaction', () => {
  const common = devCommon(1n, 'osaka');
  expect(callIntrinsicGas(common, { data: Uint8Array.of(1) })).toBeUndefined();
  expect(callIntrinsicGas(common, { to: TO, accessList: [[TO, []]] })).toBeUndefined();
  expect(callIntrinsicGas(common, { to: TO, value: 1n << 256n })).toBeUndefined();
  expect(callIntrinsicGas(common, { to: TO, accessList: [] })).toEqual({ upfront: 21_000n, floor: 21_000n });
});
