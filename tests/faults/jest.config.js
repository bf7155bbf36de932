// Starts whole services: their compiled JavaScript, built once per run by the global setup.
module.exports = require('../../jest.preset')(__dirname, { globalSetup: require.resolve('@tracker/system-tests-support/global-setup') });
