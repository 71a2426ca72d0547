'use strict';
/**
 * Where the time of one automined ERC20 transfer and of one eth_call of balanceOf goes, in process, on
 * each engine (own = the node's, evm/; ethereumjs = L2DEVNET_ENGINE=ethereumjs), each in its own
 * process: timers around the chain's parts, µs per use (a part's time includes the parts listed under
 * it). The transfers each go to a new holder, the calls each ask for one.
 */
const { ENGINES, perEngine, Chain, signer, deploy, erc20Transfer, tokenAbi } = require('./lib');

const rows = perEngine(__filename, measure);
if (rows !== undefined) {
  console.log('## Parts of a transfer and of a call, in process (µs per use; a part includes those under it)');
  console.log(`${'part'.padEnd(52)}${ENGINES.map((e) => e.padStart(12)).join('')}`);
  for (const label of Object.keys(rows[0]))
    console.log(`${label.padEnd(52)}${rows.map((r) => figure(r[label]).padStart(12)).join('')}`);
}

/** µs to one decimal; a dash for a part that did not run (the own engine's on ethereumjs). */
function figure(us) {
  return us === null || us === undefined || Number.isNaN(us) ? '-' : us.toFixed(1);
}

async function measure() {
  const { bytesToHex } = require('@ethereumjs/util');
  const dist = (path) => require(`../../packages/core/dist/${path}`);
  const { createRpc } = require('../../packages/rpc/dist');

  /** Total ms per part, while `on`. */
  const parts = new Map();
  let on = false;
  const time = (owner, name, label) => {
    const inner = owner[name];
    if (typeof inner !== 'function') throw new Error(`no ${label} to time`);
    owner[name] = function (...args) {
      if (!on) return inner.apply(this, args);
      const start = performance.now();
      const done = () => {
        const p = parts.get(label) ?? { ms: 0 };
        p.ms += performance.now() - start;
        parts.set(label, p);
      };
      const out = inner.apply(this, args);
      if (out instanceof Promise) return out.finally(done);
      done();
      return out;
    };
  };
  const transferParts = [
    [dist('chain/admission.js').Admission.prototype, 'submit', 'transfer: submitted to mined (all)'],
    [dist('chain/admission.js').Admission.prototype, 'recoverSender', '· signature recovery'],
    [dist('chain/miner.js').Miner.prototype, 'build', '· the block built'],
    [dist('exec/onEngine.js').EngineTransactions.prototype, 'runTx', '· · the transaction'],
    [dist('lines/lineCounter.js').LineCounter.prototype, 'endTx', "· · the transaction's line rows"],
    [dist('state/flatState.js').FlatStateManager.prototype, 'flush', "· · the state's trie writes"],
    [dist('chain/miner.js').Miner.prototype, 'commit', '· the block committed'],
  ];
  const callParts = [
    [dist('chain/calls.js').Calls.prototype, 'call', 'call: below the RPC layer'],
    [dist('exec/scratchVm.js').ScratchVm.prototype, 'runCall', '· the run on the scratch state'],
    [dist('evm/engine.js'), 'runMessage', '· · the engine (own)'],
    [dist('state/flatState.js').FlatStateManager.prototype, 'getAccount', '· · account reads'],
    [dist('state/flatState.js').FlatStateManager.prototype, 'getStorage', '· · storage reads'],
  ];
  for (const [owner, name, label] of [...transferParts, ...callParts]) time(owner, name, label);

  const chain = await Chain.create({ workers: 0 });
  const rpc = createRpc(chain);
  const alice = signer(chain, 0);
  const token = await deploy(chain, alice, 'TestToken', ['Bench', 'B', 10n ** 30n]);
  const holder = (i) => {
    const a = new Uint8Array(20);
    new DataView(a.buffer).setUint32(16, i + 1);
    return a;
  };
  const N = 1000;
  const WARM = 300;
  const transfers = Array.from({ length: WARM + N }, (_, i) =>
    alice.sign({ to: token, data: erc20Transfer(holder(i), 1n), gasLimit: 100_000n }),
  );
  const out = {};
  const measured = async (labels, label, n, fn) => {
    parts.clear();
    on = true;
    const start = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    if (label !== undefined) out[label] = ((performance.now() - start) / n) * 1000;
    on = false;
    for (const [, , l] of labels) out[l] = ((parts.get(l)?.ms ?? NaN) / n) * 1000;
  };
  for (let i = 0; i < WARM; i++) await chain.txs.submit(transfers[i]);
  await measured(transferParts, undefined, N, (i) => chain.txs.submit(transfers[WARM + i]));
  const from = bytesToHex(alice.address);
  // Made beforehand: encoding the ABI costs more than the call.
  const requests = Array.from({ length: 5000 }, (_, i) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [
      { from, to: bytesToHex(token), data: tokenAbi.encodeFunctionData('balanceOf', [bytesToHex(holder(i))]) },
      'latest',
    ],
  }));
  const call = (i) => rpc.handle(requests[i % requests.length]);
  for (let i = 0; i < 3000; i++) await call(i);
  await measured(callParts, 'eth_call balanceOf through the RPC layer (in all)', 20_000, call);
  rpc.close();
  await chain.close();
  return out;
}
