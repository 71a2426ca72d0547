/**
 * Signing with the dev accounts over the real server, checked against viem's and ethers' own
 * signers for the same keys: eth_sign / personal_sign (EIP-191), eth_signTypedData_v4 (EIP-712,
 * nested structs, arrays, bytes, a custom domain), eth_signTransaction; and bad inputs.
 */
import { JsonRpcProvider, verifyMessage, verifyTypedData } from 'ethers';
import { createWalletClient, http, parseTransaction, recoverTransactionAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await createDevnet({ listen: true, log: () => {} });
});
afterAll(() => devnet.close());

const call = (method: string, params: unknown[] = []) => devnet.provider.request({ method, params });

const MAIL = {
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 31337,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallets', type: 'address[]' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person[]' },
      { name: 'contents', type: 'string' },
      { name: 'attachment', type: 'bytes' },
      { name: 'tag', type: 'bytes4' },
      { name: 'amount', type: 'int64' },
      { name: 'urgent', type: 'bool' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallets: ['0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826'] },
    to: [
      {
        name: 'Bob',
        wallets: ['0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB', '0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57'],
      },
    ],
    contents: 'Hello, Bob!',
    attachment: '0xdeadbeef',
    tag: '0x01020304',
    amount: '-42',
    urgent: true,
  },
} as const;

test('eth_sign, personal_sign and eth_signTypedData_v4 sign as viem does with the same key', async () => {
  const [alice] = devnet.accounts;
  const local = privateKeyToAccount(alice.privateKey);
  const text = 'hello l2devnet';
  const hexText = `0x${Buffer.from(text).toString('hex')}`;
  const expected = await local.signMessage({ message: text });
  expect(await call('eth_sign', [alice.address, hexText])).toBe(expected);
  expect(await call('personal_sign', [hexText, alice.address])).toBe(expected);
  expect(await call('personal_sign', ['0x00ff', alice.address])).toBe(
    await local.signMessage({ message: { raw: '0x00ff' } }),
  );
  const typed = await local.signTypedData(MAIL as never);
  expect(await call('eth_signTypedData_v4', [alice.address, MAIL])).toBe(typed);
  expect(await call('eth_signTypedData_v4', [alice.address, JSON.stringify(MAIL)])).toBe(typed);
  // An EIP712Domain type given explicitly is the one used.
  const withDomainType = { ...MAIL, types: { ...MAIL.types, EIP712Domain: [{ name: 'name', type: 'string' }] } };
  const { EIP712Domain: _, ...types } = withDomainType.types;
  expect(await call('eth_signTypedData_v4', [alice.address, withDomainType])).toBe(
    await local.signTypedData({ ...MAIL, domain: { name: 'Ether Mail' }, types } as never),
  );
});

test("ethers' JsonRpcSigner and viem's wallet client sign through the node; the signatures verify", async () => {
  const [, bob] = devnet.accounts;
  const provider = new JsonRpcProvider(devnet.url, undefined, { staticNetwork: true });
  const signer = await provider.getSigner(bob.address);
  expect(verifyMessage('gm', await signer.signMessage('gm'))).toBe(bob.address);
  const { EIP712Domain: _d, ...types } = { ...MAIL.types, EIP712Domain: [] };
  const signature = await signer.signTypedData(MAIL.domain, types as never, MAIL.message);
  expect(verifyTypedData(MAIL.domain, types as never, MAIL.message, signature)).toBe(bob.address);
  provider.destroy();

  const wallet = createWalletClient({ chain: devnet.viemChain, transport: http(devnet.url), account: bob.address });
  expect(await wallet.signMessage({ message: 'gm' })).toBe(
    await privateKeyToAccount(bob.privateKey).signMessage({ message: 'gm' }),
  );
});

test('eth_signTransaction signs what eth_sendTransaction would send, without sending it', async () => {
  const [alice] = devnet.accounts;
  const raw = (await call('eth_signTransaction', [
    { from: alice.address, to: '0x00000000000000000000000000000000000000c1', value: '0x7' },
  ])) as `0x${string}`;
  const tx = parseTransaction(raw);
  expect(tx).toMatchObject({ type: 'eip1559', chainId: 31337, value: 7n, gas: 21000n, nonce: 0 });
  expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(alice.address);
  expect(await call('eth_getTransactionCount', [alice.address, 'pending'])).toBe('0x0');
  const hash = await call('eth_sendRawTransaction', [raw]);
  expect(((await call('eth_getTransactionReceipt', [hash])) as { status: string }).status).toBe('0x1');
});

test.each([
  ['eth_sign', ['0x00000000000000000000000000000000000000c1', '0x01'], /unknown account/],
  [
    'eth_signTypedData_v4',
    ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '{not json'],
    /typedData\) must be typed data/,
  ],
  [
    'eth_signTypedData_v4',
    ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', { ...MAIL, message: { ...MAIL.message, contents: undefined } }],
    /typedData\.message\.contents\) is missing \(string\)/,
  ],
  [
    'eth_signTypedData_v4',
    ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', { ...MAIL, message: { ...MAIL.message, tag: '0x01' } }],
    /typedData\.message\.tag\) must be 4 bytes/,
  ],
  [
    'eth_signTypedData_v4',
    ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', { ...MAIL, primaryType: 'Letter' }],
    /names no type in types: "Letter"/,
  ],
  [
    'eth_signTransaction',
    [{ from: '0x00000000000000000000000000000000000000c1', to: '0x00000000000000000000000000000000000000c1' }],
    /unknown account/,
  ],
])('%s with bad input is refused clearly (%#)', async (method, params, message) => {
  await expect(call(method, params)).rejects.toMatchObject({ message: expect.stringMatching(message) });
  // The node is still up.
  expect(await call('eth_chainId')).toBe('0x7a69');
});
