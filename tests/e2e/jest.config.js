// Starts whole services: their compiled JavaScript, built once per run by the global setup.
module.exports = require('../../jest.preset')(__dirname, { globalSetup: require.resolve('../support/src/global-setup.ts') });
