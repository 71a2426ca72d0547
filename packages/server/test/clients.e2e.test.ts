import { JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, createWalletClient, http, webSocket } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

import { ALICE_KEY, ethersFlow, viemFlow } from '../../rpc/test/flows';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

describe('real clients against the running server', () => {
  let node: TestNode;
  beforeEach(async () => {
    node = await startTestNode();
  });
  afterEach(() => node.close());

  // ethers caches identical requests for 250 ms by default; a devnet mines faster than that.
  test('ethers v6 JsonRpcProvider over HTTP', async () => {
    const provider = new JsonRpcProvider(`${node.url}/v3/test-key`, undefined, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
    await ethersFlow(provider);
    provider.destroy();
  });

  test('ethers v6 WebSocketProvider', async () => {
    const provider = new WebSocketProvider(`${node.wsUrl}/ws/v3/test-key`, undefined, { cacheTimeout: -1 });
    await ethersFlow(provider);
    await provider.destroy();
  });

  test('viem over http', async () => {
    const transport = http(`${node.url}/v3/test-key`);
    await viemFlow(
      createPublicClient({ chain: foundry, transport }),
      createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(ALICE_KEY) }),
    );
  });

  test('viem over webSocket', async () => {
    const transport = webSocket(`${node.wsUrl}/ws/v3/test-key`);
    const publicClient = createPublicClient({ chain: foundry, transport });
    await viemFlow(
      publicClient,
      createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(ALICE_KEY) }),
    );
    (await publicClient.transport.getRpcClient()).close();
  });
});
