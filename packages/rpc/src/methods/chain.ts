/** Node and fee information: what wallets ask before anything else. */
import type { ForkConfig } from '@l2devnet/core';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required } from '../method';
import { blockRef, count, data, percentiles } from '../params';

/** One fork's configuration as geth writes it: activation time and blob numbers as JSON numbers. */
function formatForkConfig(c: ForkConfig | null): Record<string, unknown> | null {
  if (c === null) return null;
  const addresses = (m: Record<string, Uint8Array>) =>
    Object.fromEntries(Object.entries(m).map(([name, address]) => [name, hex(address)]));
  return {
    activationTime: Number(c.activationTime),
    blobSchedule:
      c.blobSchedule === null
        ? null
        : {
            target: Number(c.blobSchedule.target),
            max: Number(c.blobSchedule.max),
            baseFeeUpdateFraction: Number(c.blobSchedule.baseFeeUpdateFraction),
          },
    chainId: quantity(c.chainId),
    forkId: hex(c.forkId),
    precompiles: addresses(c.precompiles),
    systemContracts: addresses(c.systemContracts),
  };
}

export const chainMethods: Record<string, Method> = {
  /** eth_chainId (EIP-695). */
  'eth_chainId': method([], ({ chain }) => quantity(chain.chainId)),
  /** net_version: the chain id in decimal. */
  'net_version': method([], ({ chain }) => chain.chainId.toString()),
  /** eth_networkId (Anvil's name of net_version). */
  'eth_networkId': method([], ({ chain }) => chain.chainId.toString()),
  'net_listening': method([], () => true),
  'net_peerCount': method([], () => quantity(0)),
  'web3_clientVersion': method([], ({ clientVersion }) => clientVersion),
  'web3_sha3': method([required('data', data)], (_ctx, input) => hex(keccak256(input))),
  /** eth_blockNumber: the head. */
  'eth_blockNumber': method([], ({ chain }) => quantity(chain.headNumber)),
  'eth_accounts': method([], ({ chain }) => chain.accounts.map((a) => hex(a.address))),
  /** eth_requestAccounts (EIP-1102): a node has no wallet to ask; its accounts, as Anvil answers. */
  'eth_requestAccounts': method([], ({ chain }) => chain.accounts.map((a) => hex(a.address))),
  'eth_syncing': method([], () => false),
  'eth_mining': method([], ({ chain }) => chain.miner.mode.mode !== 'manual'),
  'eth_hashrate': method([], () => quantity(0)),
  'eth_coinbase': method([], ({ chain }) => hex(chain.reads.coinbase)),
  'eth_protocolVersion': method([], () => quantity(68)),
  /** eth_gasPrice: next block's base fee plus the suggested tip. */
  'eth_gasPrice': method([], async ({ chain }) =>
    quantity((await chain.reads.nextBaseFee()) + chain.reads.suggestedTip()),
  ),
  /** eth_maxPriorityFeePerGas: the suggested tip (1 gwei, or what Linea's pricing asks of a transfer). */
  'eth_maxPriorityFeePerGas': method([], ({ chain }) => quantity(chain.reads.suggestedTip())),
  /**
   * eth_capabilities (execution-apis src/eth/capabilities.yaml): the history this node serves. It keeps
   * every block's state, so every resource reaches back to genesis and none has a deletion window, as
   * geth's archive node with the hash scheme answers (internal/ethapi/capabilities.go).
   */
  'eth_capabilities': method([], async ({ chain }) => {
    const head = await chain.reads.headBlock();
    const all = { disabled: false, oldestBlock: '0x0' };
    return {
      head: { number: quantity(head.header.number), hash: hex(head.hash()) },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    };
  }),
  /** eth_config (EIP-7910): the current, next and last fork's configuration, as geth answers it. */
  'eth_config': method([], async ({ chain }) => {
    const configs = await chain.reads.forkConfigs();
    return {
      current: formatForkConfig(configs.current),
      next: formatForkConfig(configs.next),
      last: formatForkConfig(configs.last),
    };
  }),
  /** eth_baseFee: the next block's base fee (EIP-1559), as eth_blobBaseFee is for blobs; 0 before London. */
  'eth_baseFee': method([], async ({ chain }) => quantity(await chain.reads.nextBaseFee())),
  /** eth_blobBaseFee: the next block's blob base fee (EIP-4844), as geth; 0 before Cancun. */
  'eth_blobBaseFee': method([], async ({ chain }) => quantity(await chain.reads.nextBlobBaseFee())),
  /** eth_feeHistory(blockCount, newestBlock, rewardPercentiles?): geth's fee oracle, blob fees included. */
  'eth_feeHistory': method(
    [required('blockCount', count), required('newestBlock', blockRef()), optional('rewardPercentiles', percentiles)],
    async ({ chain }, blockCount, newest, rewardPercentiles) => {
      const newestNumber = (await chain.reads.resolveNumber(newest)) ?? chain.headNumber;
      const h = await chain.reads.feeHistory(blockCount, newestNumber, rewardPercentiles);
      return {
        oldestBlock: quantity(h.oldestBlock),
        baseFeePerGas: h.baseFeePerGas.map(quantity),
        gasUsedRatio: h.gasUsedRatio,
        baseFeePerBlobGas: h.baseFeePerBlobGas.map(quantity),
        blobGasUsedRatio: h.blobGasUsedRatio,
        ...(h.reward !== undefined && { reward: h.reward.map((r) => r.map(quantity)) }),
      };
    },
  ),
};
