// The web pages in Chromium against the whole system (every service a process, compiled
// once per run by the global setup, as for tests/e2e).
module.exports = require('../../jest.preset')(__dirname, { globalSetup: require.resolve('@tracker/system-tests-support/global-setup') });
