// Shared jest settings: TypeScript through swc (fast, no type-check; `pnpm typecheck` does that).
const path = require('node:path');

module.exports = (dir, overrides = {}) => ({
  displayName: path.relative(__dirname, dir),
  rootDir: dir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }], '^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // Packages published as ES modules only (the gateway's proxy) are compiled like our own code.
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/)?(http-proxy-middleware|httpxy|is-plain-obj)[@/])'],
  globalSetup: require.resolve('@tracker/testing/global-setup'),
  testTimeout: 30_000,
  ...overrides,
});
