#!/usr/bin/env node
'use strict';
/*
 * Compiles every fixtures/contracts/*.sol with solc (solcjs) and writes one
 * artifact per contract: fixtures/contracts/<ContractName>.json containing
 * { contractName, abi, bytecode, deployedBytecode }.
 *
 * fixtures/contracts/messaging/ holds the L1 and L2 message services (--l1).
 *
 * fixtures/contracts/linea/ holds the contracts behind Linea's published line
 * counts; they are compiled as Linea's acceptance tests compile them (solc
 * 0.8.19, optimizer on, runs 1, the compiler's default EVM version), so their
 * bytecode is the one the reference numbers were measured on.
 *
 * Usage: node scripts/build-fixtures.js
 * Exits non-zero on any compilation error.
 */
const fs = require('fs');
const path = require('path');

const CONTRACTS = path.resolve(__dirname, '..', 'fixtures', 'contracts');
const BUILDS = [
  {
    dir: CONTRACTS,
    solc: require('solc'),
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' },
  },
  {
    // The message services between the devnet's L1 and L2 (transient storage: Cancun or later).
    dir: path.join(CONTRACTS, 'messaging'),
    solc: require('solc'),
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', viaIR: true },
  },
  {
    dir: path.join(CONTRACTS, 'linea'),
    solc: require('solc-0.8.19'),
    settings: { optimizer: { enabled: true, runs: 1 } },
  },
];

function main() {
  for (const build of BUILDS) {
    const code = compileDir(build.dir, build.solc, build.settings);
    if (code !== 0) return code;
  }
  return 0;
}

function compileDir(CONTRACTS_DIR, solc, settings) {
  const files = fs
    .readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  if (files.length === 0) {
    console.error(`build-fixtures: no .sol files found in ${CONTRACTS_DIR}`);
    return 1;
  }

  const sources = {};
  for (const file of files) {
    sources[file] = { content: fs.readFileSync(path.join(CONTRACTS_DIR, file), 'utf8') };
  }

  const input = {
    language: 'Solidity',
    sources,
    settings: {
      ...settings,
      outputSelection: {
        '*': {
          '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'],
        },
      },
    },
  };

  const output = JSON.parse(solc.compile(JSON.stringify(input)));

  // Warning 2018 ("state mutability can be restricted to view/pure") is
  // expected: fixture functions are deliberately non-view so they can be sent
  // as transactions.
  const IGNORED_WARNINGS = new Set(['2018']);
  let failed = false;
  for (const diag of output.errors || []) {
    const msg = diag.formattedMessage || diag.message;
    if (diag.severity !== 'error' && IGNORED_WARNINGS.has(diag.errorCode)) continue;
    if (diag.severity === 'error') {
      failed = true;
      console.error(msg);
    } else {
      console.warn(msg);
    }
  }
  if (failed) {
    console.error('build-fixtures: compilation failed');
    return 1;
  }

  const seen = new Map();
  let written = 0;
  for (const file of files) {
    const contracts = (output.contracts && output.contracts[file]) || {};
    for (const contractName of Object.keys(contracts).sort()) {
      if (seen.has(contractName)) {
        console.error(
          `build-fixtures: duplicate contract name ${contractName} in ${file} and ${seen.get(contractName)}`,
        );
        return 1;
      }
      seen.set(contractName, file);

      const c = contracts[contractName];
      const bytecode = c.evm && c.evm.bytecode && c.evm.bytecode.object;
      const deployedBytecode = c.evm && c.evm.deployedBytecode && c.evm.deployedBytecode.object;
      if (typeof bytecode !== 'string' || typeof deployedBytecode !== 'string') {
        console.error(`build-fixtures: missing bytecode for ${file}:${contractName}`);
        return 1;
      }
      // Skip abstract contracts / interfaces (no bytecode).
      if (bytecode.length === 0) continue;

      const artifact = {
        contractName,
        abi: c.abi,
        bytecode: '0x' + bytecode,
        deployedBytecode: '0x' + deployedBytecode,
      };
      const outPath = path.join(CONTRACTS_DIR, `${contractName}.json`);
      fs.writeFileSync(outPath, JSON.stringify(artifact, null, 2) + '\n');
      console.log(`build-fixtures: wrote ${path.relative(process.cwd(), outPath)}`);
      written++;
    }
  }

  console.log(`build-fixtures: ${written} artifact(s) from ${files.length} source file(s) (solc ${solc.version()})`);
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  console.error(err && err.stack ? err.stack : err);
  process.exitCode = 1;
}
