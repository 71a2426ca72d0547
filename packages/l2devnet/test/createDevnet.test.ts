import { BrowserProvider } from 'ethers';
import { createPublicClient, createTestClient, createWalletClient, custom, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { Web3 } from 'web3';

import { ALICE_KEY, ethersFlow, viemFlow } from '../../rpc/test/flows';
import { createDevnet, DevnetOptionError } from '../src';
import type { Devnet } from '../src';

// Node 20 defines Symbol.asyncDispose in its main realm only, not in jest's; `await using` needs it.
(Symbol as { asyncDispose?: symbol }).asyncDispose ??= Symbol.for('nodejs.asyncDispose');

const BOB = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CAROL = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('createDevnet', () => {
  let devnet: Devnet;
  beforeEach(async () => {
    devnet = await createDevnet();
  });
  afterEach(() => devnet.close());

  test('starts in memory, not listening, with the ten dev accounts', async () => {
    expect(devnet.url).toBeUndefined();
    expect(devnet.wsUrl).toBeUndefined();
    expect(devnet.accounts).toHaveLength(10);
    expect(devnet.accounts[0]).toEqual({
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: ALICE_KEY,
    });
    expect(devnet.chain.chainId).toBe(31337n);
    expect(await devnet.provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
  });

  test('runs eth_call without from, from the zero address', async () => {
    // A contract that returns CALLER: 0x33 (CALLER) 0x60 0x00 0x52 (MSTORE at 0) 0x60 0x20 0x60 0x00 0xf3 (RETURN 32 bytes).
    await devnet.provider.request({ method: 'anvil_setCode', params: [CAROL, '0x3360005260206000f3'] });
    const caller = await devnet.provider.request({ method: 'eth_call', params: [{ to: CAROL }, 'latest'] });
    expect(caller).toBe(`0x${'0'.repeat(64)}`);
  });

  test('drives ethers v6 through the whole contract flow', async () => {
    await ethersFlow(new BrowserProvider(devnet.provider, undefined, { cacheTimeout: -1 }));
  });

  test('drives viem through the whole contract flow', async () => {
    const transport = custom(devnet.provider);
    await viemFlow(
      createPublicClient({ chain: foundry, transport }),
      createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(ALICE_KEY) }),
    );
  });

  test("takes viem's anvil test client: balance, snapshot and revert", async () => {
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: custom(devnet.provider) });
    const publicClient = createPublicClient({ chain: foundry, transport: custom(devnet.provider) });
    const id = await testClient.snapshot();
    await testClient.setBalance({ address: CAROL, value: parseEther('7') });
    expect(await publicClient.getBalance({ address: CAROL })).toBe(parseEther('7'));
    await testClient.revert({ id });
    expect(await publicClient.getBalance({ address: CAROL })).toBe(parseEther('10000'));
  });

  test('drives web3.js: a transfer signed by the node and a balance read', async () => {
    const web3 = new Web3(devnet.provider);
    expect(await web3.eth.getChainId()).toBe(31337n);
    const receipt = await web3.eth.sendTransaction({ from: devnet.accounts[0].address, to: BOB, value: 1000n });
    expect(receipt.status).toBe(1n);
    expect(await web3.eth.getBalance(BOB)).toBe(parseEther('10000') + 1000n);
  });
});

describe('createDevnet options', () => {
  test('take the command options as typed fields', async () => {
    await using devnet = await createDevnet({
      chainId: 59141,
      accounts: 2,
      balance: '0.5',
      gasLimit: 20_000_000n,
      mining: false,
      rpcEvmTimeout: '2s',
    });
    const { provider } = devnet;
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0xe705');
    expect(devnet.accounts).toHaveLength(2);
    expect(await provider.request({ method: 'eth_getBalance', params: [devnet.accounts[1].address, 'latest'] })).toBe(
      '0x6f05b59d3b20000',
    );
    expect(await provider.request({ method: 'eth_mining' })).toBe(false);
    expect(devnet.chain.gasLimit).toBe(20_000_000n);
  });

  test("counts with Linea's limitless counter when asked (ZkCounter: the modules it does not check are 0)", async () => {
    await using limitless = await createDevnet({ counter: 'limitless' });
    await using tracer = await createDevnet();
    // PUSH1 1 PUSH1 2 ADD POP STOP
    const code = '0x600160020150' + '00';
    const counts = async (d: Devnet) => {
      await d.provider.request({ method: 'anvil_setCode', params: [CAROL, code] });
      const report = (await d.provider.request({ method: 'l2_traceCallLineCounts', params: [{ to: CAROL }] })) as {
        counter: string;
        modules: Record<string, { count: number }>;
      };
      return { counter: report.counter, add: report.modules.ADD.count, gas: report.modules.GAS.count };
    };
    // ZkTracer: ADD(2, 1) one row + spillage 1; GAS one row for the STOP (a HALT) + spillage 1.
    expect(await counts(tracer)).toEqual({ counter: 'tracer', add: 2, gas: 2 });
    // ZkCounter: ADD unchecked; GAS one row per context exit (the call's) + spillage 1.
    expect(await counts(limitless)).toEqual({ counter: 'limitless', add: 0, gas: 2 });
  });

  test('close the devnet when an await using block ends', async () => {
    let url: string | undefined;
    {
      await using devnet = await createDevnet({ listen: true });
      url = devnet.url!;
      expect((await fetch(`${url}/health`)).status).toBe(200);
    }
    await expect(fetch(`${url}/health`)).rejects.toThrow('fetch failed');
  });

  test('listen on a free port when asked, and serve HTTP there', async () => {
    await using devnet = await createDevnet({ listen: true });
    expect(devnet.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(devnet.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(devnet.url!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  });

  test.each([
    [{ balance: 'lots' }, 'createDevnet: option balance must be an amount of ETH like 10000 or "0.5"; got "lots"'],
    [{ hardfork: 'frontier2' }, 'createDevnet: option hardfork must be one of'],
    [{ chainId: 1.5 }, 'createDevnet: option chainId must be an integer; got "1.5"'],
    [{ blockTime: 2, mining: false }, 'createDevnet: options mining: false and blockTime exclude each other'],
    [{ rpcEvmTimeout: 'soon' }, 'createDevnet: option rpcEvmTimeout must be milliseconds or a duration'],
    [{ counter: 'zk' }, 'createDevnet: option counter must be one of tracer, limitless; got "zk"'],
    [
      { counter: 'limitless', tracer: 'london' },
      'createDevnet: option counter limitless counts for the osaka tracer only',
    ],
  ])('refuse a bad option: %j', async (opts, message) => {
    const err = await createDevnet(opts as object).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DevnetOptionError);
    expect((err as Error).message.startsWith(message)).toBe(true);
  });
});
