import { useDevnet } from '../src/testing';

const CAROL = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TEN_THOUSAND_ETH = '0x21e19e0c9bab2400000';

// One devnet for this file, from jest's global hooks.
const devnet = useDevnet({ accounts: 3 });
const balanceOfCarol = () => devnet.provider.request({ method: 'eth_getBalance', params: [CAROL, 'latest'] });

beforeAll(async () => {
  // State a file's beforeAll sets up stays for every test.
  await devnet.provider.request({ method: 'evm_mine' });
});

describe('useDevnet', () => {
  test('gives a devnet with the options asked for', async () => {
    expect(devnet.accounts).toHaveLength(3);
    expect(devnet.url).toBeUndefined();
    expect(await devnet.provider.request({ method: 'eth_blockNumber' })).toBe('0x1');
  });

  test('lets a test change the state', async () => {
    await devnet.provider.request({ method: 'anvil_setBalance', params: [CAROL, '0x1'] });
    await devnet.provider.request({ method: 'evm_mine' });
    expect(await balanceOfCarol()).toBe('0x1');
  });

  test('reverts what the test before changed', async () => {
    expect(await balanceOfCarol()).toBe(TEN_THOUSAND_ETH);
    expect(await devnet.provider.request({ method: 'eth_blockNumber' })).toBe('0x1');
  });

  test('passes subscription notifications on', async () => {
    const head = new Promise<unknown>((resolve) => devnet.provider.on('message', (m) => resolve(m.data.result)));
    await devnet.provider.request({ method: 'eth_subscribe', params: ['newHeads'] });
    await devnet.provider.request({ method: 'evm_mine' });
    expect(await head).toMatchObject({ number: '0x2' });
  });
});

describe('useDevnet with hooks passed in', () => {
  test('registers its four hooks with them', () => {
    const registered: string[] = [];
    const hook = (name: string) => () => registered.push(name);
    useDevnet(
      {},
      {
        beforeAll: hook('beforeAll'),
        afterAll: hook('afterAll'),
        beforeEach: hook('beforeEach'),
        afterEach: hook('afterEach'),
      },
    );
    expect(registered).toEqual(['beforeAll', 'beforeEach', 'afterEach', 'afterAll']);
  });

  test('refuses reads before the devnet started', async () => {
    const early = useDevnet({}, { beforeAll() {}, afterAll() {}, beforeEach() {}, afterEach() {} });
    expect(() => early.accounts).toThrow('useDevnet: accounts is there once the devnet started (in beforeAll)');
    await expect(early.provider.request({ method: 'eth_chainId' })).rejects.toThrow(
      'useDevnet: eth_chainId before the devnet started (it starts in beforeAll)',
    );
  });
});

describe('useDevnet with an L1', () => {
  test('reverts the L1 after each test too', async () => {
    const hooks: Record<string, () => Promise<void>> = {};
    const withL1 = useDevnet(
      { l1: true },
      {
        beforeAll: (fn) => (hooks.beforeAll = fn),
        afterAll: (fn) => (hooks.afterAll = fn),
        beforeEach: (fn) => (hooks.beforeEach = fn),
        afterEach: (fn) => (hooks.afterEach = fn),
      },
    );
    await hooks.beforeAll();
    try {
      await hooks.beforeEach();
      await withL1.l1?.provider.request({ method: 'evm_mine' });
      expect(withL1.l1?.chain.headNumber).toBe(1n);
      await hooks.afterEach();
      expect(withL1.l1?.chain.headNumber).toBe(0n);
    } finally {
      await hooks.afterAll();
    }
  });
});
