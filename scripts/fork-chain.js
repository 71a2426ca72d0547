#!/usr/bin/env node
'use strict';
/**
 * Rebuilds fixtures/chains/forks.genesis.json and fixtures/chains/forks.rlp: a chain made by this
 * node under a geth genesis whose schedule passes through every fork from Homestead to Osaka and
 * the two blob-parameter-only forks, one or two forks a block apart:
 *
 *   block  0 Homestead   3 Spurious Dragon   6 Istanbul   10 Paris (the merge)   13 Cancun   16 BPO1
 *          2 Tangerine   4 Byzantium         7 Berlin     12 Shanghai            14 Prague   17 BPO2
 *                        5 Petersburg        8 London                            15 Osaka
 *
 * Every block holds a transfer of the newest type its fork allows (unprotected legacy, EIP-155
 * legacy, EIP-2930, EIP-1559) and a call to a contract that stores and logs; Cancun on, a blob
 * transaction (Osaka on, with cell proofs); Prague, an EIP-7702 delegation; Osaka, an EIP-7002
 * withdrawal request. Proof-of-work blocks
 * carry their canonical difficulty, and terminalTotalDifficulty is the total at block 9.
 * Needs a build (npm run build). Run: node scripts/fork-chain.js
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} = require('@ethereumjs/tx');
const { bytesToHex, concatBytes, eoaCode7702SignAuthorization, hexToBytes } = require('@ethereumjs/util');

const { Chain, SYSTEM_CONTRACTS } = require('../packages/core/dist');

const OUT = join(__dirname, '..', 'fixtures', 'chains');
const CHAIN_ID = 7_017n;
const GENESIS_TIME = 1_700_000_000n;
const BLOCK_TIME = 12n;
const time = (n) => GENESIS_TIME + BLOCK_TIME * BigInt(n);
const BLOCKS = 18;
const GWEI = 1_000_000_000n;
// Blob transactions go to an account without code (Bob's runs the contract's from Prague on).
const BLOB_TO = hexToBytes('0x000000000000000000000000000000000000b10b');
const WITHDRAWAL_QUEUE = hexToBytes(SYSTEM_CONTRACTS.find((c) => c.eip === 7002).address);

// A contract that adds one to slot 0 and logs the new value under topic 0xaa:
// runtime  SLOAD(0)+1 -> SSTORE(0); MSTORE(0, SLOAD(0)); LOG1(0, 32, 0xaa); STOP  (23 bytes, no PUSH0)
const RUNTIME = '600160005401600055600054600052' + '60aa60206000a1' + '00';
const INIT = '6017600c60003960176000f3' + RUNTIME;

const config = {
  chainId: Number(CHAIN_ID),
  homesteadBlock: 0,
  eip150Block: 2,
  eip155Block: 3,
  eip158Block: 3,
  byzantiumBlock: 4,
  constantinopleBlock: 5,
  petersburgBlock: 5,
  istanbulBlock: 6,
  muirGlacierBlock: 6,
  berlinBlock: 7,
  londonBlock: 8,
  arrowGlacierBlock: 8,
  grayGlacierBlock: 8,
  mergeNetsplitBlock: 10,
  terminalTotalDifficulty: 0, // set below, once the proof-of-work blocks are made
  shanghaiTime: Number(time(12)),
  cancunTime: Number(time(13)),
  pragueTime: Number(time(14)),
  osakaTime: Number(time(15)),
  bpo1Time: Number(time(16)),
  bpo2Time: Number(time(17)),
  depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
  blobSchedule: {
    cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
    prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
    bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
  },
};

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const genesis = {
  config,
  nonce: '0x0000000000000042',
  timestamp: `0x${GENESIS_TIME.toString(16)}`,
  extraData: '0x666f726b73',
  gasLimit: '0x1c9c380',
  difficulty: '0x20000',
  mixHash: `0x${'00'.repeat(32)}`,
  coinbase: `0x${'00'.repeat(20)}`,
  baseFeePerGas: null,
  excessBlobGas: null,
  blobGasUsed: null,
  alloc: {
    [ALICE]: { balance: '0x3635c9adc5dea00000' },
    [BOB]: { balance: '0x3635c9adc5dea00000' },
    ...Object.fromEntries(
      SYSTEM_CONTRACTS.map((c) => [c.address.toLowerCase(), { code: c.code, nonce: '0x1', balance: '0x0' }]),
    ),
  },
};

(async () => {
  const chain = await Chain.create({ genesis, mining: { mode: 'manual' }, rpcLineCheck: false });
  const [alice, bob] = chain.accounts;
  let nonce = 0n;
  let logger;
  for (let n = 1; n <= BLOCKS; n++) {
    await chain.dev.setNextBlockTimestamp(time(n));
    const common = chain.common.copy();
    common.setHardforkBy({ blockNumber: BigInt(n), timestamp: time(n) });
    const is = (eip) => common.isActivatedEIP(eip);
    const fee = is(1559) ? { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI } : { gasPrice: 100n * GWEI };
    // The newest transaction type this block's fork allows.
    const make = (fields) => {
      const f = { nonce: nonce++, gasLimit: 100_000n, ...fields };
      if (is(1559)) return createFeeMarket1559Tx({ ...f, ...fee, chainId: CHAIN_ID }, { common });
      if (is(2930)) return createAccessList2930Tx({ ...f, ...fee, chainId: CHAIN_ID, accessList: [] }, { common });
      return createLegacyTx({ ...f, ...fee }, { common });
    };
    const txs = [];
    if (n === 1) txs.push(make({ data: hexToBytes(`0x${INIT}`) }));
    else txs.push(make({ to: logger }));
    txs.push(make({ to: bob.address, value: BigInt(n) }));
    if (is(4844))
      txs.push(
        createBlob4844Tx(
          {
            nonce: nonce++,
            gasLimit: 21_000n,
            to: BLOB_TO,
            blobsData: [`block ${n}`],
            maxFeePerBlobGas: 100n,
            ...fee,
            chainId: CHAIN_ID,
          },
          { common },
        ),
      );
    if (n === 15) {
      // EIP-7002: a withdrawal request (a 48-byte validator key and an 8-byte amount, and the fee,
      // 1 wei while the queue is empty), which the block's requests then carry.
      const input = concatBytes(new Uint8Array(48).fill(0x11), new Uint8Array(8).fill(0x01));
      txs.push(make({ to: WITHDRAWAL_QUEUE, data: input, value: 1n, gasLimit: 200_000n }));
    }
    if (n === 14) {
      // EIP-7702: Bob's account runs the logger's code from here on; Alice sends it.
      const authorization = { chainId: `0x${CHAIN_ID.toString(16)}`, address: bytesToHex(logger), nonce: '0x0' };
      const signed = eoaCode7702SignAuthorization(authorization, bob.privateKey);
      txs.push(
        createEOACode7702Tx(
          {
            nonce: nonce++,
            gasLimit: 200_000n,
            to: bob.address,
            authorizationList: [signed],
            ...fee,
            chainId: CHAIN_ID,
          },
          { common },
        ),
      );
    }
    for (const tx of txs) {
      const signed = tx.sign(alice.privateKey);
      await chain.txs.sendRawTransaction(signed.type === 3 ? signed.serializeNetworkWrapper() : signed.serialize());
    }
    const block = await chain.mine();
    if (block.transactions.length !== txs.length)
      throw new Error(`block ${n}: ${block.transactions.length} of ${txs.length} transactions mined`);
    const receipts = await chain.reads.getReceipts(block.header.number);
    if (n === 1) logger = receipts[0].contractAddress;
    console.log(
      `block ${n} (${common.hardfork()}): ${txs.length} transactions, types ${txs.map((t) => t.type).join(' ')}`,
    );
  }
  // The merge happens after block 9: its total difficulty is the terminal one.
  let td = 0n;
  for (let n = 0n; n <= 9n; n++) td += (await chain.reads.getBlockByNumber(n)).header.difficulty;
  config.terminalTotalDifficulty = Number(td);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'forks.genesis.json'), `${JSON.stringify(genesis, null, 2)}\n`);
  writeFileSync(join(OUT, 'forks.rlp'), concatBytes(...(await chain.imports.exportBlocks(0n, chain.headNumber))));
  const head = await chain.reads.headBlock();
  console.log(`head ${head.header.number} ${bytesToHex(head.hash())}; terminalTotalDifficulty ${td}`);
  await chain.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
