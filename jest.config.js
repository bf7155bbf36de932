// `pnpm test` at the root runs every package's suite in one jest run.
module.exports = {
  projects: ['<rootDir>/libs/*', '<rootDir>/services/*', '<rootDir>/tests/*'],
};
