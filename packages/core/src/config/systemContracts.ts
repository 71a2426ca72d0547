/**
 * The system contracts a fork's blocks call into, as go-ethereum's params/protocol_params.go defines
 * them: EIP-4788 beacon roots (Cancun), EIP-2935 block-hash history, EIP-7002 withdrawal and
 * EIP-7251 consolidation request queues (Prague). A dev chain gets them in its genesis, as geth's
 * dev mode does (nonce 1, no balance), so blocks write to them and requests are read from them.
 */
import type { Common } from '@ethereumjs/common';
import { hexToBytes } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';

import type { GenesisAllocation } from './genesis';

export interface SystemContract {
  eip: number;
  /** The name EIP-7910 (eth_config) gives its address. */
  name: string;
  address: PrefixedHexString;
  code: PrefixedHexString;
}

export const SYSTEM_CONTRACTS: readonly SystemContract[] = [
  {
    eip: 4788,
    name: 'BEACON_ROOTS_ADDRESS',
    address: '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
  },
  {
    eip: 2935,
    name: 'HISTORY_STORAGE_ADDRESS',
    address: '0x0000F90827F1C53a10cb7A02335B175320002935',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
  },
  {
    eip: 7002,
    name: 'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS',
    address: '0x00000961Ef480Eb55e80D19ad83579A64c007002',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd',
  },
  {
    eip: 7251,
    name: 'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS',
    address: '0x0000BBdDc7CE488642fb579F8B00f3a590007251',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd',
  },
];

/** The address of EIP `eip`'s system contract. */
export function systemContractAddress(eip: number): Uint8Array {
  return hexToBytes(SYSTEM_CONTRACTS.find((c) => c.eip === eip)!.address);
}

/** The system contracts of the EIPs active on `common`'s fork, as genesis allocations. */
export function systemContractAllocs(common: Common): GenesisAllocation[] {
  return SYSTEM_CONTRACTS.filter((c) => common.isActivatedEIP(c.eip)).map((c) => ({
    address: hexToBytes(c.address),
    balance: 0n,
    nonce: 1n,
    code: hexToBytes(c.code),
  }));
}
