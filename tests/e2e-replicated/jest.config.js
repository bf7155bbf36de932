// The end-to-end suite of tests/e2e once more, replicated: two gateways and two replicas
// of every service, each behind a per-request round-robin (startSystem, tests/support).
const path = require('node:path');

module.exports = require('../../jest.preset')(path.join(__dirname, '../e2e'), {
  displayName: 'tests/e2e-replicated',
  setupFiles: [path.join(__dirname, 'replicas.js')],
  globalSetup: require.resolve('@tracker/system-tests-support/global-setup'),
  // These start no system (the command line; scripts/start-all.mjs; the round-robin itself): the same run either way.
  testPathIgnorePatterns: ['/node_modules/', '/test/admin-cli\\.test\\.ts$', '/test/start-all\\.test\\.ts$', '/test/round-robin\\.test\\.ts$'],
});
