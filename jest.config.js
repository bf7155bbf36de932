// `pnpm test` at the root runs every package's suite in one jest run.
// testTimeout is a global option: project configs cannot set it.
module.exports = {
  projects: ['<rootDir>/libs/*', '<rootDir>/services/*', '<rootDir>/tests/*', '<rootDir>/bench'],
  testTimeout: 30_000,
};
