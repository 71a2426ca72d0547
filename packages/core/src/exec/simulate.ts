/**
 * eth_simulateV1 (execution-apis): blocks of calls simulated on top of a block, each block with
 * its overrides, each call building on the state the earlier ones left. Runs inside the simulator
 * (simulator.ts `simulate`), so nothing reaches the chain.
 */
import { Block as BlockClass, createBlockHeader, createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Block, BlockHeader, HeaderData } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import type { EVMResult } from '@ethereumjs/evm';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { Bloom, calculateMinerReward, rewardAccount } from '@ethereumjs/vm';
import type { VM } from '@ethereumjs/vm';
import { keccak256 } from '../config/fastCrypto';

import { beginBlock, requestsHash, requestsOf, sealBlock } from './blockBuilder';
import { ChainError, gethAddress } from '../errors';
import { gasSpent, intrinsicGasParts } from '../pool/intrinsicGas';
import { storedBlockOptions } from '../store/chainStore';
import type { LineCounts } from '../lines/conflation';
import type { CallRequest } from './scratchVm';
import { decodeRevertReason } from './revertReason';
import { gethError, logOfOpcode } from './tracers/tracer';
import type { EvmObserver, MessageEvent, MessageResult, OpcodeState } from './tracers/tracer';
import type { LocatedLog, Log, Receipt } from '../types';

/** The execution-apis limit on simulated blocks. */
export const MAX_SIMULATED_BLOCKS = 256;
/** The last nonce an account can have (uint64). */
const MAX_NONCE = (1n << 64n) - 1n;
/** geth's step between simulated block timestamps. */
const TIMESTAMP_INCREMENT = 12n;
/** traceTransfers' logs come from this address, with the ERC-20 Transfer event's topics. */
const TRANSFER_LOG_ADDRESS = new Uint8Array(20).fill(0xee);
const TRANSFER_TOPIC = hexToBytes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');

/** A request eth_simulateV1 refuses as a whole, with the code the specification gives it. */
export class SimulateError extends ChainError {
  readonly kind = 'simulate';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SimBlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
}

/** A call of a simulated block: eth_call's request, with a nonce and a chain id. */
export type SimCall = CallRequest & { nonce?: bigint; chainId?: bigint };

export interface SimBlockInput<Override> {
  blockOverrides?: SimBlockOverrides;
  stateOverrides?: Override[];
  calls?: SimCall[];
}

export interface SimOptions {
  validation: boolean;
  traceTransfers: boolean;
  /** The gas all the calls may use together (the node's call gas cap); 0 for no bound. */
  gasCap?: bigint;
}

export interface SimCallResult {
  returnData: Uint8Array;
  logs: LocatedLog[];
  gasUsed: bigint;
  /** The gas used before refunds: what the call needs to be given. */
  maxUsedGas: bigint;
  status: 0 | 1;
  error?: { code: number; message: string; data?: Uint8Array };
  /** The call's prover line counts, as linea_estimateGas counts them. */
  lineCounts: LineCounts;
}

export interface SimulatedBlock {
  block: Block;
  receipts: Receipt[];
  calls: SimCallResult[];
}

/** What the simulation needs of the simulator it runs in. */
export interface SimHost<Override> {
  vm: VM;
  /** Moves the VM to the fork of the block at (number, timestamp), as each simulated block is its own. */
  useForkOf(at: { number: bigint; timestamp: bigint }): void;
  /** Applies state overrides; the addresses they wrote. */
  applyOverrides(overrides: Override[]): Promise<Uint8Array[]>;
  /** A block simulated: later blocks' BLOCKHASH of its number gives its hash, as geth's simulated chain does. */
  simulated(number: bigint, hash: Uint8Array): void;
  /**
   * Runs a message call or creation at depth 0 with `gasLimit` for execution, fed to `tracer` if
   * given; counts its lines as `tx`.
   */
  runCall(
    call: SimCall,
    block: Block,
    gasLimit: bigint,
    gasPrice: bigint,
    tx: TypedTransaction,
    tracer?: EvmObserver,
  ): Promise<{ result: EVMResult; lineCounts: LineCounts }>;
}

/** Runs the simulation's blocks on top of `parent`; the state it leaves is the caller's to revert. */
export async function simulateBlocks<Override>(
  host: SimHost<Override>,
  parent: Block,
  input: SimBlockInput<Override>[],
  opts: SimOptions,
): Promise<SimulatedBlock[]> {
  if (input.length > MAX_SIMULATED_BLOCKS) throw new SimulateError(-38026, 'too many blocks');
  const out: SimulatedBlock[] = [];
  const budget = { remaining: opts.gasCap === undefined || opts.gasCap === 0n ? (1n << 64n) - 1n : opts.gasCap };
  let prev: { header: BlockHeader; hash: Uint8Array } = { header: parent.header, hash: parent.hash() };
  for (const sim of input) {
    const o = sim.blockOverrides ?? {};
    const number = o.number ?? prev.header.number + 1n;
    if (number <= prev.header.number)
      throw new SimulateError(-38020, `block numbers must be in order: ${number} <= ${prev.header.number}`);
    // The blocks that fill a gap count against the limit too, as geth counts them.
    if (number - parent.header.number > BigInt(MAX_SIMULATED_BLOCKS))
      throw new SimulateError(-38026, 'too many blocks');
    // The numbers skipped over are empty blocks, as geth fills them.
    while (prev.header.number + 1n < number) {
      const empty = await simulateBlock(host, prev, { number: prev.header.number + 1n }, [], [], opts, budget);
      out.push(empty);
      prev = { header: empty.block.header, hash: empty.block.hash() };
      host.simulated(prev.header.number, prev.hash);
    }
    const time = o.time ?? prev.header.timestamp + TIMESTAMP_INCREMENT;
    if (time <= prev.header.timestamp)
      throw new SimulateError(-38021, `block timestamps must be in order: ${time} <= ${prev.header.timestamp}`);
    const done = await simulateBlock(
      host,
      prev,
      { ...o, number, time },
      sim.stateOverrides ?? [],
      sim.calls ?? [],
      opts,
      budget,
    );
    out.push(done);
    prev = { header: done.block.header, hash: done.block.hash() };
    host.simulated(prev.header.number, prev.hash);
  }
  return out;
}

async function simulateBlock<Override>(
  host: SimHost<Override>,
  prev: { header: BlockHeader; hash: Uint8Array },
  o: SimBlockOverrides,
  overrides: Override[],
  calls: SimCall[],
  opts: SimOptions,
  budget: { remaining: bigint },
): Promise<SimulatedBlock> {
  const { vm } = host;
  const number = o.number ?? prev.header.number + 1n;
  const timestamp = o.time ?? prev.header.timestamp + TIMESTAMP_INCREMENT;
  host.useForkOf({ number, timestamp });
  const common = vm.common;
  const sm = vm.stateManager;
  const header: HeaderData = {
    parentHash: prev.hash,
    number,
    timestamp,
    gasLimit: o.gasLimit ?? prev.header.gasLimit,
    // As geth's makeHeaders: the fee recipient and difficulty are the block before's unless given
    // (difficulty 0 after the merge).
    coinbase: o.feeRecipient ?? prev.header.coinbase.bytes,
    mixHash: o.prevRandao ?? new Uint8Array(32),
    difficulty: common.consensusType() === ConsensusType.ProofOfWork ? prev.header.difficulty : 0n,
  };
  if (common.isActivatedEIP(1559))
    // Without validation the base fee is 0, so calls need no fees (as geth).
    header.baseFeePerGas = o.baseFeePerGas ?? (opts.validation ? prev.header.calcNextBaseFee() : 0n);
  if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32);
  if (common.isActivatedEIP(4844)) {
    header.excessBlobGas = 0n;
    header.blobGasUsed = 0n;
  }
  const context = new BlockClass(createBlockHeader(header, { common }), [], [], undefined, { common });
  // An override that leaves an account empty leaves no account (EIP-161), as geth's state drops an
  // empty account it wrote to when the block's first transaction ends.
  for (const written of await host.applyOverrides(overrides)) {
    const address = new Address(written);
    const account = await sm.getAccount(address);
    if (common.gteHardfork('spuriousDragon') && account !== undefined && account.isEmpty())
      await sm.deleteAccount(address);
  }
  // As geth's simulation: the block's own writes before the calls (beacon root, parent hash) ...
  await beginBlock(vm, context);
  const baseFee = (header.baseFeePerGas as bigint | undefined) ?? 0n;
  const gasLimit = header.gasLimit as bigint;
  const coinbase = new Address(header.coinbase as Uint8Array);

  const txs: TypedTransaction[] = [];
  const receipts: Receipt[] = [];
  const results: SimCallResult[] = [];
  const callLogs: IndexedLog[][] = [];
  const logCount = { next: 0 };
  let gasUsed = 0n;
  for (const call of calls) {
    const from = new Address(call.from ?? new Uint8Array(20));
    // The sender as geth's messages write it: checksummed only when a message needs it.
    const who = { toString: () => gethAddress(from.bytes) };
    const account = (await sm.getAccount(from)) ?? new Account();
    // geth's sanitizeCall: the sender's nonce, the block's remaining gas within the request's budget,
    // then CallDefaults (chain id; fees 0 where not given).
    const nonce = call.nonce ?? account.nonce;
    const remaining = gasLimit - gasUsed;
    const asked = call.gas ?? remaining;
    if (remaining < asked)
      throw new SimulateError(-38015, `block gas limit reached: remaining: ${remaining}, required: ${asked}`);
    const gas = asked < budget.remaining ? asked : budget.remaining;
    const gasCapped = gas < asked;
    if (call.gasPrice !== undefined && (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined))
      throw new SimulateError(-32000, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    if (call.chainId !== undefined && call.chainId !== common.chainId())
      throw new SimulateError(-32000, `chainId does not match node's (have=${call.chainId}, want=${common.chainId()})`);
    const london = common.isActivatedEIP(1559);
    // ToMessage: the fee cap and tip, and the price paid (tip over the base fee, within the cap).
    const feeCap = call.gasPrice ?? call.maxFeePerGas ?? 0n;
    const tipCap = call.gasPrice ?? call.maxPriorityFeePerGas ?? 0n;
    let price = call.gasPrice ?? 0n;
    if (london && call.gasPrice === undefined && (feeCap > 0n || tipCap > 0n))
      price = tipCap + baseFee < feeCap ? tipCap + baseFee : feeCap;
    // ToTransaction: legacy with a gas price, else EIP-1559; unsigned.
    const tx = unsignedTx(call, { nonce, gas, feeCap, tipCap, chainId: common.chainId() }, common);
    // ApplyMessage's checks, in its order; their errors carry the gas supplied, as geth's.
    const invalid = (code: number, message: string) => new SimulateError(code, `err: ${message} (supplied gas ${gas})`);
    if (opts.validation && nonce > account.nonce)
      throw invalid(-38011, `nonce too high: address ${who}, tx: ${nonce} state: ${account.nonce}`);
    if (opts.validation && nonce < account.nonce)
      throw invalid(-38010, `nonce too low: address ${who}, tx: ${nonce} state: ${account.nonce}`);
    if (opts.validation && account.nonce === MAX_NONCE)
      throw invalid(-32603, `nonce has max value: address ${who}, nonce: ${account.nonce}`);
    const freeOfFees = !opts.validation && feeCap === 0n && tipCap === 0n;
    if (london && !freeOfFees) {
      if (feeCap < tipCap)
        throw invalid(
          -32602,
          `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tipCap}, maxFeePerGas: ${feeCap}`,
        );
      if (feeCap < baseFee)
        throw invalid(
          -38012,
          `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
        );
    }
    const cost = gas * feeCap + (call.value ?? 0n);
    if (account.balance < cost)
      throw invalid(
        -38014,
        `insufficient funds for gas * price + value: address ${who} have ${account.balance} want ${cost}`,
      );
    const intrinsic = intrinsicGasParts(tx);
    if (gas < intrinsic.upfront) throw invalid(-38013, `intrinsic gas too low: have ${gas}, want ${intrinsic.upfront}`);
    if (gas < intrinsic.floor)
      throw invalid(-38013, `insufficient gas for floor data gas cost: have ${gas}, want ${intrinsic.floor}`);
    // The sender buys the gas before the call runs (its BALANCE shows it), and gets back what is left.
    const bought = (await sm.getAccount(from)) ?? new Account();
    bought.balance -= gas * price;
    await sm.putAccount(from, bought);
    const observed = new CallLogs(opts.traceTransfers, logCount);
    const run = await host.runCall(call, context, gas - intrinsic.upfront, price, tx, observed);
    const { result } = run;
    const used = gasSpent(intrinsic, result.execResult, true);
    // The sender moves to its next nonce and gets back the gas not used; the fee recipient gets the tips.
    const after = (await sm.getAccount(from)) ?? new Account();
    // A uint64, as geth's: past the last nonce without validation is back to 0.
    after.nonce = account.nonce === MAX_NONCE ? 0n : account.nonce + 1n;
    after.balance += (gas - used) * price;
    await sm.putAccount(from, after);
    if (!freeOfFees) {
      const fee = used * (london ? price - baseFee : price);
      if (fee > 0n) {
        const miner = (await sm.getAccount(coinbase)) ?? new Account();
        miner.balance += fee;
        await sm.putAccount(coinbase, miner);
      }
    }
    gasUsed += used;
    if (used > budget.remaining)
      throw new SimulateError(-32000, `RPC gas cap exhausted: need ${used}, remaining ${budget.remaining}`);
    budget.remaining -= used;
    const error = result.execResult.exceptionError?.error;
    // The receipt holds the logs the contracts emitted; with traceTransfers the call's result also
    // has the transfers, in order with them.
    const logs: Log[] = (result.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
    const status = error === undefined ? 1 : 0;
    const bloom = new Bloom(undefined, common);
    for (const log of logs) {
      bloom.add(log.address);
      for (const t of log.topics) bloom.add(t);
    }
    txs.push(tx);
    receipts.push({
      txHash: tx.hash(),
      type: tx.type,
      status,
      cumulativeGasUsed: gasUsed,
      gasUsed: used,
      effectiveGasPrice: price,
      from: from.bytes,
      to: call.to,
      contractAddress: call.to === undefined && error === undefined ? result.createdAddress?.bytes : undefined,
      logs,
      logsBloom: bloom.bitvector,
    });
    callLogs.push(observed.result());
    const callResult: SimCallResult = {
      // geth's ExecutionResult.Return(): nothing from a call that failed (a revert's data is the error's).
      returnData: error === undefined ? result.execResult.returnValue : new Uint8Array(),
      logs: [],
      gasUsed: used,
      maxUsedGas: gasSpent(intrinsic, result.execResult, false),
      status,
      lineCounts: run.lineCounts,
    };
    if (error === 'revert') {
      const reason = decodeRevertReason(result.execResult.returnValue);
      callResult.error = {
        code: 3,
        message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
        data: result.execResult.returnValue,
      };
    } else if (error !== undefined)
      callResult.error = {
        code: -32015,
        message: gethError(error) + (gasCapped ? " (gas limit was capped by the RPC server's global gas cap)" : ''),
      };
    results.push(callResult);
  }

  // ... the miner's reward before the merge, as geth's ethash Finalize ...
  if (common.consensusType() === ConsensusType.ProofOfWork)
    await rewardAccount(vm.evm, coinbase, calculateMinerReward(common.param('minerReward'), 0), common);
  // ... and its requests after them.
  const logsOf = receipts.map((r) => ({
    receipt: { logs: r.logs.map((l) => [l.address, l.topics, l.data]) },
  })) as unknown as Parameters<typeof requestsOf>[2];
  const requests = await requestsOf(vm, gasLimit, logsOf);
  const block = await sealBlock(vm, header, txs, receipts, undefined, requestsHash(vm, requests));
  const calls_ = results.map((call, transactionIndex) => {
    call.logs = callLogs[transactionIndex].map(({ index, ...log }) => ({
      ...log,
      blockNumber: number,
      blockHash: block.hash(),
      blockTimestamp: block.header.timestamp,
      transactionHash: txs[transactionIndex].hash(),
      transactionIndex,
      logIndex: index,
      removed: false,
    }));
    return call;
  });
  return { block, receipts, calls: calls_ };
}

/**
 * A simulated call as geth's ToTransaction makes it (DynamicFeeTxType by default): legacy when a gas
 * price is given, else EIP-1559 with the access list; unsigned, its hash taken over a zero signature.
 */
function unsignedTx(
  call: SimCall,
  f: { nonce: bigint; gas: bigint; feeCap: bigint; tipCap: bigint; chainId: bigint },
  common: VM['common'],
): TypedTransaction {
  const fields: SimTxFields = {
    nonce: f.nonce,
    gasLimit: f.gas,
    to: call.to,
    value: call.value ?? 0n,
    data: call.data ?? new Uint8Array(),
    ...(call.gasPrice !== undefined
      ? { gasPrice: call.gasPrice }
      : {
          chainId: f.chainId,
          maxFeePerGas: f.feeCap,
          maxPriorityFeePerGas: f.tipCap,
          accessList: call.accessList ?? [],
        }),
  };
  try {
    return simulatedTx(fields, common);
  } catch (e) {
    throw new SimulateError(-32602, `invalid transaction: ${(e as Error).message}`);
  }
}

/** A simulated transaction's fields: a gas price for a legacy one, else an EIP-1559 one's. */
export interface SimTxFields {
  nonce: bigint;
  gasLimit: bigint;
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasPrice?: bigint;
  chainId?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList?: [Uint8Array, Uint8Array[]][];
  /** Its hash, when it was taken already (a block crossing from a worker). */
  hash?: Uint8Array;
}

/** The unsigned transaction of `f` (unsignedTx), made again where a simulated block crosses to. */
function simulatedTx(f: SimTxFields, common: VM['common']): TypedTransaction {
  const fields = { nonce: 0n, gasLimit: 0n, to: f.to, value: f.value, data: f.data };
  const tx =
    f.gasPrice !== undefined
      ? createLegacyTx({ ...fields, gasPrice: f.gasPrice }, { common, freeze: false })
      : createFeeMarket1559Tx(
          {
            ...fields,
            chainId: f.chainId,
            maxFeePerGas: f.maxFeePerGas,
            maxPriorityFeePerGas: f.maxPriorityFeePerGas,
            accessList: f.accessList ?? [],
          },
          { common, freeze: false },
        );
  // Set after construction: ethereumjs refuses gas over EIP-7825's cap when it constructs one, and a
  // simulated call is not held to the cap (geth skips the transaction checks).
  // So is a nonce of 2^64-1, which geth simulates without validation.
  (tx as { gasLimit: bigint }).gasLimit = f.gasLimit;
  (tx as { nonce: bigint }).nonce = f.nonce;
  // ethereumjs hashes signed transactions only; an unsigned one serializes with an empty signature,
  // which is what geth hashes. Its bytes are kept: the line counter, the block's transaction trie
  // and its RLP read them again, and the transaction does not change after this.
  const serialized = tx.serialize();
  const hash = f.hash ?? keccak256(serialized);
  Object.defineProperty(tx, 'hash', { value: () => hash });
  Object.defineProperty(tx, 'serialize', { value: () => serialized });
  return tx;
}

/**
 * A simulated block as it crosses from a call worker (structured clone keeps no classes): its
 * header's RLP and its transactions' fields; receipts and calls are plain data.
 */
export interface SimulatedBlockData {
  header: Uint8Array;
  txs: SimTxFields[];
  receipts: Receipt[];
  calls: SimCallResult[];
}

export function simulatedBlockData({ block, receipts, calls }: SimulatedBlock): SimulatedBlockData {
  const txs = block.transactions.map((tx): SimTxFields => {
    const shared = {
      nonce: tx.nonce,
      gasLimit: tx.gasLimit,
      to: tx.to?.bytes,
      value: tx.value,
      data: tx.data,
      hash: tx.hash(),
    };
    if (!('maxFeePerGas' in tx)) return { ...shared, gasPrice: (tx as { gasPrice: bigint }).gasPrice };
    return {
      ...shared,
      chainId: tx.chainId,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      accessList: tx.accessList as [Uint8Array, Uint8Array[]][],
    };
  });
  return { header: block.header.serialize(), txs, receipts, calls };
}

/** The simulated block `data` describes, on a chain of `common` (whose fork follows a schedule when `scheduled`). */
export function simulatedBlockFrom(data: SimulatedBlockData, common: VM['common'], scheduled: boolean): SimulatedBlock {
  const header = createBlockHeaderFromRLP(data.header, storedBlockOptions(common, scheduled));
  const txs = data.txs.map((f) => simulatedTx(f, header.common));
  const block = new BlockClass(header, txs, [], undefined, { common: header.common });
  return { block, receipts: data.receipts, calls: data.calls };
}

/** A log of a simulated call with its index in the block, as geth's simulation tracer numbers it. */
type IndexedLog = Log & { index: number };

/**
 * The logs of a simulated call as geth's simulation tracer (internal/ethapi/logtracer.go) gives
 * them: with `transfers` (traceTransfers), every transfer of ETH (a call or creation with value) as
 * an ERC-20 Transfer log from 0xeeee…eeee, in order with the logs the contracts emit; the logs of a
 * frame that fails dropped. Each log is numbered as it is emitted, from a count the block's calls
 * share: a dropped log keeps its number, as geth's count goes on.
 */
class CallLogs implements EvmObserver {
  // LOG0..LOG4 and SELFDESTRUCT through their handlers: the step event of every instruction cost
  // more than the calls themselves.
  readonly steps = false;
  readonly opcodes = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xff];
  private readonly frames: IndexedLog[][] = [];
  /** Per frame: the creation whose transfer log waits for its address, and the number it was given. */
  private readonly pending: ({ message: MessageEvent; index: number } | undefined)[] = [];
  private top: IndexedLog[] = [];

  constructor(
    private readonly transfers: boolean,
    private readonly count: { next: number },
  ) {}

  onOpcode(code: number, state: OpcodeState): void | Promise<void> {
    if (code === 0xff) return this.selfdestruct(state);
    const log = logOfOpcode(code, state);
    if (log !== undefined) this.frames[this.frames.length - 1]?.push({ ...log, index: this.count.next++ });
  }

  /** geth's tracer enters a SELFDESTRUCT with the contract's balance: a transfer to the beneficiary. */
  private async selfdestruct(state: OpcodeState): Promise<void> {
    const frame = this.frames[this.frames.length - 1];
    if (!this.transfers || frame === undefined) return;
    const address = state.interpreter.getAddress();
    const balance = (await state.stateManager.getAccount(address))?.balance ?? 0n;
    const [top] = state.stack.peek(1);
    const beneficiary = top & ((1n << 160n) - 1n);
    if (balance > 0n)
      frame.push(transferLog(address.bytes, setLengthLeft(bigIntToBytes(beneficiary), 20), balance, this.count));
  }

  onEnter(message: MessageEvent): void {
    const logs: IndexedLog[] = [];
    const transfer = this.transfers && message.value > 0n && message.delegatecall !== true;
    if (transfer && message.to !== undefined)
      logs.push(transferLog(message.caller.bytes, message.to.bytes, message.value, this.count));
    this.frames.push(logs);
    this.pending.push(transfer && message.to === undefined ? { message, index: this.count.next++ } : undefined);
  }

  onExit(result: MessageResult): void {
    let logs = this.frames.pop() ?? [];
    const creation = this.pending.pop();
    if (creation !== undefined && result.createdAddress !== undefined) {
      const { caller, value } = creation.message;
      logs = [{ ...transferLog(caller.bytes, result.createdAddress.bytes, value), index: creation.index }, ...logs];
    }
    if (result.execResult.exceptionError === undefined) {
      const parent = this.frames[this.frames.length - 1];
      if (parent !== undefined) parent.push(...logs);
      else this.top = logs;
    } else if (this.frames.length === 0) this.top = [];
  }

  /** The logs of the whole call. */
  result(): IndexedLog[] {
    return this.top;
  }
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): Log;
function transferLog(from: Uint8Array, to: Uint8Array, value: bigint, count: { next: number }): IndexedLog;
function transferLog(from: Uint8Array, to: Uint8Array, value: bigint, count?: { next: number }): Log {
  const log: Log = {
    address: TRANSFER_LOG_ADDRESS,
    topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)],
    data: setLengthLeft(bigIntToBytes(value), 32),
  };
  if (count === undefined) return log;
  const indexed: IndexedLog = { ...log, index: count.next++ };
  return indexed;
}
