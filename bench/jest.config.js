// Only pure unit tests of the table code: no infrastructure needed.
module.exports = require('../jest.preset')(__dirname, { globalSetup: undefined });
