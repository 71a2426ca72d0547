/**
 * eth_simulateV1 (execution-apis): blocks of calls simulated on top of a block, each block with
 * its overrides, each call building on the state the earlier ones left. Runs inside the simulator
 * (simulator.ts `simulate`), so nothing reaches the chain.
 */
import { Block as BlockClass, createBlockHeader } from '@ethereumjs/block';
import type { Block, BlockHeader, HeaderData } from '@ethereumjs/block';
import type { EVMResult } from '@ethereumjs/evm';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import type { VM } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { beginBlock, requestsHashOf, sealBlock } from './blockBuilder';
import { ChainError } from '../errors';
import { gasSpent, intrinsicGasParts } from '../pool/intrinsicGas';
import type { LineCounts } from '../lines/conflation';
import type { CallRequest } from './scratchVm';
import { gethError, logOfStep } from './tracers/tracer';
import type { EvmObserver, MessageEvent, MessageResult, StepEvent } from './tracers/tracer';
import type { LocatedLog, Log, Receipt } from '../types';

/** The execution-apis limit on simulated blocks. */
export const MAX_SIMULATED_BLOCKS = 256;
/** EIP-7825's cap on a transaction's gas. */
const TX_GAS_CAP = 1n << 24n;
/** geth's step between simulated block timestamps. */
const TIMESTAMP_INCREMENT = 12n;
/** traceTransfers' logs come from this address, with the ERC-20 Transfer event's topics. */
const TRANSFER_LOG_ADDRESS = new Uint8Array(20).fill(0xee);
const TRANSFER_TOPIC = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'));

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

/** A call of a simulated block: eth_call's request, with a nonce. */
export type SimCall = CallRequest & { nonce?: bigint };

export interface SimBlockInput<Override> {
  blockOverrides?: SimBlockOverrides;
  stateOverrides?: Override[];
  calls?: SimCall[];
}

export interface SimOptions {
  validation: boolean;
  traceTransfers: boolean;
}

export interface SimCallResult {
  returnData: Uint8Array;
  logs: LocatedLog[];
  gasUsed: bigint;
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
  applyOverrides(overrides: Override[]): Promise<void>;
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
  if (input.length > MAX_SIMULATED_BLOCKS)
    throw new SimulateError(-38026, `too many blocks: ${input.length} (at most ${MAX_SIMULATED_BLOCKS})`);
  const out: SimulatedBlock[] = [];
  let prev: { header: BlockHeader; hash: Uint8Array } = { header: parent.header, hash: parent.hash() };
  for (const sim of input) {
    const o = sim.blockOverrides ?? {};
    const number = o.number ?? prev.header.number + 1n;
    if (number <= prev.header.number)
      throw new SimulateError(-38020, `block numbers must be in order: ${number} <= ${prev.header.number}`);
    // The blocks that fill a gap count against the limit too, as geth counts them.
    if (number - parent.header.number > BigInt(MAX_SIMULATED_BLOCKS))
      throw new SimulateError(
        -38026,
        `too many blocks: block ${number} is ${number - parent.header.number} after the base block (at most ${MAX_SIMULATED_BLOCKS})`,
      );
    // The numbers skipped over are empty blocks, as geth fills them.
    while (prev.header.number + 1n < number) {
      const empty = await simulateBlock(host, prev, { number: prev.header.number + 1n }, [], [], opts);
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
    coinbase: o.feeRecipient ?? new Uint8Array(20),
    mixHash: o.prevRandao ?? new Uint8Array(32),
    difficulty: 0n,
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
  await host.applyOverrides(overrides);
  // As geth's simulation: the block's own writes before the calls (beacon root, parent hash) ...
  await beginBlock(vm, context);
  const baseFee = (header.baseFeePerGas as bigint | undefined) ?? 0n;
  const gasLimit = header.gasLimit as bigint;
  const coinbase = new Address(header.coinbase as Uint8Array);

  const txs: TypedTransaction[] = [];
  const receipts: Receipt[] = [];
  const results: SimCallResult[] = [];
  let gasUsed = 0n;
  for (const call of calls) {
    const from = new Address(call.from ?? new Uint8Array(20));
    const account = (await sm.getAccount(from)) ?? new Account();
    const nonce = call.nonce ?? account.nonce;
    if (opts.validation && nonce < account.nonce)
      throw new SimulateError(-38010, `nonce too low: address ${from}, tx: ${nonce} state: ${account.nonce}`);
    if (opts.validation && nonce > account.nonce)
      throw new SimulateError(-38011, `nonce too high: address ${from}, tx: ${nonce} state: ${account.nonce}`);
    const remaining = gasLimit - gasUsed;
    // Osaka caps a transaction's gas (EIP-7825): the default is what is left, within the cap.
    const cap = common.isActivatedEIP(7825) ? TX_GAS_CAP : remaining;
    const gas = call.gas ?? (remaining < cap ? remaining : cap);
    if (gas > remaining)
      throw new SimulateError(-38015, `block gas limit reached: gas ${gas} is more than the ${remaining} left`);
    const maxFee = call.maxFeePerGas ?? call.gasPrice ?? (opts.validation ? baseFee : 0n);
    const tip = call.maxPriorityFeePerGas ?? (call.gasPrice !== undefined ? call.gasPrice : 0n);
    if (opts.validation && maxFee < baseFee)
      throw new SimulateError(
        -38012,
        `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${maxFee}, baseFee: ${baseFee}`,
      );
    const tx = unsignedTx(
      {
        chainId: common.chainId(),
        nonce,
        gasLimit: gas,
        maxFeePerGas: maxFee,
        maxPriorityFeePerGas: tip > maxFee ? maxFee : tip,
        to: call.to,
        value: call.value ?? 0n,
        data: call.data ?? new Uint8Array(),
        // Unsigned, as geth's simulated transactions: their hash is taken over a zero signature.
        v: 0n,
        r: 0n,
        s: 0n,
      },
      common,
    );
    const intrinsic = intrinsicGasParts(tx);
    if (gas < intrinsic.floor)
      throw new SimulateError(-38013, `intrinsic gas too low: have ${gas}, want ${intrinsic.floor}`);
    const price = maxFee < baseFee + tip ? maxFee : baseFee + tip;
    // geth's buyGas, with or without validation: the gas at the fee cap and the value must be there.
    const cost = gas * maxFee + (call.value ?? 0n);
    if (account.balance < cost)
      throw new SimulateError(
        -38014,
        `insufficient funds for gas * price + value: address ${from} have ${account.balance} want ${cost}`,
      );
    // The sender buys the gas before the call runs (its BALANCE shows it), and gets back what is left.
    const bought = (await sm.getAccount(from)) ?? new Account();
    bought.balance -= gas * price;
    await sm.putAccount(from, bought);
    const transfers = opts.traceTransfers ? new TransferLogs() : undefined;
    const run = await host.runCall(call, context, gas - intrinsic.upfront, price, tx, transfers);
    const { result } = run;
    const used = gasSpent(intrinsic, result.execResult, true);
    // The sender moves to its next nonce and gets back the gas not used; the fee recipient gets the tips.
    const after = (await sm.getAccount(from)) ?? new Account();
    after.nonce = account.nonce + 1n;
    after.balance += (gas - used) * price;
    await sm.putAccount(from, after);
    if (price > baseFee) {
      const miner = (await sm.getAccount(coinbase)) ?? new Account();
      miner.balance += used * (price - baseFee);
      await sm.putAccount(coinbase, miner);
    }
    gasUsed += used;
    const error = result.execResult.exceptionError?.error;
    const logs: Log[] =
      transfers?.result() ??
      (result.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
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
    const callResult: SimCallResult = {
      returnData: result.execResult.returnValue,
      logs: [],
      gasUsed: used,
      status,
      lineCounts: run.lineCounts,
    };
    if (error === 'revert')
      callResult.error = { code: 3, message: 'execution reverted', data: result.execResult.returnValue };
    else if (error !== undefined) callResult.error = { code: -32015, message: gethError(error) };
    results.push(callResult);
  }

  // ... and its requests after them.
  const logsOf = receipts.map((r) => ({
    receipt: { logs: r.logs.map((l) => [l.address, l.topics, l.data]) },
  })) as unknown as Parameters<typeof requestsHashOf>[2];
  const requestsHash = await requestsHashOf(vm, gasLimit, logsOf);
  const block = await sealBlock(vm, header, txs, receipts, undefined, requestsHash);
  let logIndex = 0;
  const calls_ = results.map((call, transactionIndex) => {
    call.logs = receipts[transactionIndex].logs.map((log) => ({
      ...log,
      blockNumber: number,
      blockHash: block.hash(),
      blockTimestamp: block.header.timestamp,
      transactionHash: txs[transactionIndex].hash(),
      transactionIndex,
      logIndex: logIndex++,
      removed: false,
    }));
    return call;
  });
  return { block, receipts, calls: calls_ };
}

/** A simulated transaction; one no transaction could be (EIP-7825's gas cap, say) refuses the request. */
function unsignedTx(data: Parameters<typeof createFeeMarket1559Tx>[0], common: VM['common']): TypedTransaction {
  try {
    return createFeeMarket1559Tx(data, { common, freeze: false });
  } catch (e) {
    throw new SimulateError(-32602, `invalid transaction: ${(e as Error).message}`);
  }
}

/**
 * traceTransfers: every transfer of ETH (a call or creation with value) as an ERC-20 Transfer log
 * from 0xeeee…eeee, in order with the logs the contracts emit; dropped with a frame that fails.
 */
class TransferLogs implements EvmObserver {
  readonly steps = true;
  private readonly frames: Log[][] = [];
  /** Per frame: the creation whose transfer log waits for its address. */
  private readonly pending: (MessageEvent | undefined)[] = [];
  private top: Log[] = [];

  onStep(step: StepEvent): void | Promise<void> {
    if (step.opcode.code === 0xff) return this.selfdestruct(step);
    const log = logOfStep(step);
    if (log !== undefined) this.frames[this.frames.length - 1]?.push(log);
  }

  /** geth's tracer enters a SELFDESTRUCT with the contract's balance: a transfer to the beneficiary. */
  private async selfdestruct(step: StepEvent): Promise<void> {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || step.stack.length === 0) return;
    const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
    const beneficiary = step.stack[step.stack.length - 1] & ((1n << 160n) - 1n);
    if (balance > 0n)
      frame.push(transferLog(step.address.bytes, setLengthLeft(bigIntToBytes(beneficiary), 20), balance));
  }

  onEnter(message: MessageEvent): void {
    const logs: Log[] = [];
    if (message.value > 0n && message.delegatecall !== true && message.to !== undefined)
      logs.push(transferLog(message.caller.bytes, message.to.bytes, message.value));
    this.frames.push(logs);
    this.pending.push(message.to === undefined && message.value > 0n ? message : undefined);
  }

  onExit(result: MessageResult): void {
    let logs = this.frames.pop() ?? [];
    const creation = this.pending.pop();
    if (creation !== undefined && result.createdAddress !== undefined)
      logs = [transferLog(creation.caller.bytes, result.createdAddress.bytes, creation.value), ...logs];
    if (result.execResult.exceptionError === undefined) {
      const parent = this.frames[this.frames.length - 1];
      if (parent !== undefined) parent.push(...logs);
      else this.top = logs;
    } else if (this.frames.length === 0) this.top = [];
  }

  /** The logs of the whole call, transfers included. */
  result(): Log[] {
    return this.top;
  }
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): Log {
  return {
    address: TRANSFER_LOG_ADDRESS,
    topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)],
    data: setLengthLeft(bigIntToBytes(value), 32),
  };
}
