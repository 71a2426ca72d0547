import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // ESM-only dependencies (the @noble/@scure v2 line under ethereumjs) are compiled to CommonJS for
    // jest, which cannot require() ES modules on Node 20.
    '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/(@noble|@scure)/).*/node_modules/'],
  moduleNameMapper: {
    '^@l2devnet/(core|rpc|server)$': '<rootDir>/packages/$1/src/index.ts',
    // ethereumjs exposes its TypeScript sources under a `typescript` export condition; use the build.
    '^@ethereumjs/([a-z]+)$': '<rootDir>/node_modules/@ethereumjs/$1/dist/cjs/index.js',
  },
  testTimeout: 60_000,
};

export default config;
