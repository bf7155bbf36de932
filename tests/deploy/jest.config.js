// No global setup: these checks read files, run scripts and, for the Postgres roles, make
// their own scratch database; they need none of the shared test infrastructure.
module.exports = require('../../jest.preset')(__dirname, { globalSetup: undefined });
