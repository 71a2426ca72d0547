import { BrowserProvider } from 'ethers';
import { createPublicClient, createWalletClient, custom } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

import { createProvider } from '../src';
import { createTestRpc } from './helpers';
import type { TestRpc } from './helpers';
import { ALICE_KEY, ethersFlow, viemFlow } from './flows';

describe('the in-process EIP-1193 provider', () => {
  let t: TestRpc;
  beforeEach(async () => {
    t = await createTestRpc();
  });
  afterEach(() => t.close());

  test('drives ethers v6 through the whole contract flow', async () => {
    // ethers caches identical requests for 250 ms by default; a devnet mines faster than that.
    await ethersFlow(new BrowserProvider(createProvider(t.rpc), undefined, { cacheTimeout: -1 }));
  });

  test('drives viem through the whole contract flow', async () => {
    const transport = custom(createProvider(t.rpc));
    const publicClient = createPublicClient({ chain: foundry, transport });
    const walletClient = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(ALICE_KEY) });
    await viemFlow(publicClient, walletClient);
  });
});
