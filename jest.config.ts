import type { Config } from 'jest';

// isolatedModules: each file is transpiled on its own (no type check in tests; tsc -b does that).
const transpile = {
  tsconfig: { isolatedModules: true, allowJs: true, esModuleInterop: true, target: 'es2022', module: 'commonjs' },
};

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', transpile],
    // ESM-only dependencies (the @noble/@scure v2 line under ethereumjs, the KZG packages) are compiled to CommonJS for
    // jest, which cannot require() ES modules on Node 20.
    '^.+\\.m?js$': ['ts-jest', transpile],
  },
  transformIgnorePatterns: [
    '^(?!.*/node_modules/(@noble|@scure|micro-eth-signer|micro-packed|@paulmillr)/).*/node_modules/',
  ],
  moduleNameMapper: {
    '^@l2devnet/(core|rpc|server|cli)$': '<rootDir>/packages/$1/src/index.ts',
    // ethereumjs exposes its TypeScript sources under a `typescript` export condition; use the build.
    '^@ethereumjs/([a-z]+)$': '<rootDir>/node_modules/@ethereumjs/$1/dist/cjs/index.js',
  },
  globalSetup: '<rootDir>/jest.globalSetup.ts',
  testTimeout: 60_000,
};

export default config;
