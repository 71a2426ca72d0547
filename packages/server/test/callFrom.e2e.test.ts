import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createRpc, createProvider } from '@l2devnet/rpc';
import { BrowserProvider, Contract } from 'ethers';
import { createPublicClient, http, parseAbi } from 'viem';
import { foundry } from 'viem/chains';

import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as { abi: any[]; bytecode: string };
const COUNT = '0x06661abd';
const ZERO_WORD = `0x${'0'.repeat(64)}`;
const FROM_REQUIRED = {
  code: -32602,
  message:
    'invalid params: param 1 (transaction.from) is required on /v3/<KEY> (the service spec); / and /ws accept a call without it, and so does /v3 with --call-from-optional',
};

describe('eth_call without "from"', () => {
  let node: TestNode;
  let address: string;
  const call = () => ({ jsonrpc: '2.0', id: 7, method: 'eth_call', params: [{ to: address, data: COUNT }, 'latest'] });
  beforeAll(async () => {
    node = await startTestNode();
    address = await node.deploy(counter.bytecode);
  });
  afterAll(() => node.close());

  test('is refused on the hosted-API paths, as the service document says', async () => {
    expect((await node.post(call(), '/v3/some-key')).json.error).toEqual(FROM_REQUIRED);
    const ws = await node.ws('/ws/v3/some-key');
    try {
      expect((await ws.request('eth_call', call().params)).error).toEqual(FROM_REQUIRED);
    } finally {
      await ws.close();
    }
  });

  test('runs from the zero address on the plain devnet paths', async () => {
    expect((await node.post(call(), '/')).json.result).toBe(ZERO_WORD);
    const ws = await node.ws('/ws');
    try {
      expect((await ws.request('eth_call', call().params)).result).toBe(ZERO_WORD);
    } finally {
      await ws.close();
    }
    // viem's readContract sends no `from`.
    const client = createPublicClient({ chain: foundry, transport: http(`${node.url}/`) });
    const read = await client.readContract({
      address: address as `0x${string}`,
      abi: parseAbi(['function count() view returns (uint256)']),
      functionName: 'count',
    });
    expect(read).toBe(0n);
  });

  test('runs in process: ethers reads a contract through the EIP-1193 provider', async () => {
    const provider = new BrowserProvider(createProvider(createRpc(node.chain)));
    const contract = new Contract(address, counter.abi, provider);
    expect(await contract.count()).toBe(0n);
  });

  test('--call-from-optional relaxes the rule on the hosted-API paths too', async () => {
    const relaxed = await startTestNode({ requireCallFrom: false });
    try {
      address = await relaxed.deploy(counter.bytecode);
      expect((await relaxed.post(call(), '/v3/some-key')).json.result).toBe(ZERO_WORD);
    } finally {
      await relaxed.close();
    }
  });
});
