// `pnpm test` at the root runs every package's suite in one jest run.
// testTimeout is a global option: project configs cannot set it.
module.exports = {
  projects: ['<rootDir>/libs/*', '<rootDir>/services/*', '<rootDir>/tests/*', '<rootDir>/bench'],
  testTimeout: 30_000,
  // Two files at a time (jest's default on a 2-CPU machine is one): each file has its own
  // schemas, Redis database and broker names, and most of an end-to-end file's time is
  // spent waiting on the system it started, so two side by side take about half as long.
  maxWorkers: 2,
};
