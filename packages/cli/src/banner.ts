/** What the command prints at start, in the shape Anvil users know. */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import type { Chain } from '@l2devnet/core';

function formatEther(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0');
  return `${whole}.${frac}`;
}

export async function banner(
  chain: Chain,
  info: { dataDir: string | undefined; limitsFile: string; rpcLineCheck: boolean; version: string },
): Promise<string> {
  const lines: string[] = [];
  const rule = '==================';
  lines.push('', `l2devnet v${info.version}`, '', 'Available Accounts', rule);
  for (const [i, a] of chain.accounts.entries()) {
    const { balance } = await chain.reads.getAccount(a.address, chain.headNumber);
    lines.push(`(${i}) ${toChecksumAddress(bytesToHex(a.address))} (${formatEther(balance)} ETH)`);
  }
  lines.push('', 'Private Keys', rule);
  for (const [i, a] of chain.accounts.entries()) lines.push(`(${i}) ${bytesToHex(a.privateKey)}`);
  lines.push('', 'Wallet', rule, `Mnemonic:          ${chain.mnemonic}`, `Derivation path:   ${chain.derivationPath}`);
  const head = await chain.reads.headBlock();
  const rules = chain.sequencerRules;
  const mining =
    chain.miner.mode.mode === 'interval'
      ? `every ${chain.miner.mode.intervalMs / 1000} s`
      : chain.miner.mode.mode === 'auto'
        ? 'automine'
        : 'manual';
  lines.push(
    '',
    'Chain ID',
    rule,
    String(chain.chainId),
    '',
    'Chain',
    rule,
    `Hardfork:          ${chain.hardfork}`,
    `Engine:            ${chain.engine === 'l2devnet' ? "l2devnet (the node's own EVM)" : 'ethereumjs'}`,
    `Block gas limit:   ${chain.gasLimit}`,
    `Next base fee:     ${await chain.reads.nextBaseFee()}`,
    `Head block:        ${head.header.number}`,
    ...(chain.fork === undefined
      ? []
      : [
          `Forked from:       ${chain.fork.source.name.replace(/^the fork remote /, '')} at block ${chain.fork.number} (${bytesToHex(chain.fork.hash)})`,
          `Fork cache:        ${chain.fork.cache.file ?? '(in memory)'}`,
        ]),
    `Mining:            ${mining}`,
    `Data directory:    ${info.dataDir ?? '(in memory)'}`,
    `Line counts:       Linea's ${chain.lines.tracer} tracer, ${chain.lines.profile.counter === 'limitless' ? 'limitless counter (ZkCounter)' : 'full tracer (ZkTracer)'}`,
    `Line limits:       ${info.limitsFile}${info.rpcLineCheck ? '' : ' (RPC-stage check off)'}`,
    `Sequencer rules:   ${rules === undefined ? "off (Ethereum's)" : `Linea's: calldata ${rules.maxTxCalldataSize ?? 'any'}/tx, ${rules.maxBlockCalldataSize ?? 'any'}/block; gas ${rules.maxTxGasLimit}/tx, ${rules.maxBlockGas}/block; no blob transactions, no precompile recipients`}`,
    `Linea methods:     linea_estimateGas, linea_getTransactionExclusionStatusV1, linea_sendBundle,`,
    `                   linea_getBlockTracesCountersV2; l2_traceLineCounts, l2_traceCallLineCounts,`,
    `                   l2_getExclusions, l2_setLineLimits, ... (docs/methods.md)`,
    '',
  );
  return lines.join('\n');
}
