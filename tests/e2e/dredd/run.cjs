// Runs Dredd (its JavaScript API) once and writes what it did as JSON to a file:
//   node run.cjs <endpoint> <document file> <result file>
// with the bearer token in DREDD_TOKEN. A process of its own, so that Dredd's logger,
// its reporters' console output and the way it loads hook files (proxyquire) stay out
// of the jest worker. Dredd's own console output goes to this process's stdout.
const fs = require('node:fs');
const path = require('node:path');
const { EventEmitter } = require('node:events');
const Dredd = require('dredd');

const [endpoint, document, resultFile] = process.argv.slice(2);
const emitter = new EventEmitter();
const result = { tests: [], stats: null, error: null };

const summary = (status, test, error) => ({
  status,
  // "METHOD (expected status) URI", as Dredd reports it.
  title: test.title,
  origin: test.origin,
  message: test.message,
  expectedStatus: test.expected?.statusCode,
  actualStatus: test.actual?.statusCode,
  actualHeaders: test.actual?.headers,
  actualBody: test.actual?.body?.slice(0, 2000),
  request: test.request && { method: test.request.method, uri: test.request.uri, headers: test.request.headers, body: test.request.body },
  errors: test.errors,
  error: error && String(error.stack || error),
});

for (const status of ['pass', 'fail', 'skip']) emitter.on(`test ${status}`, (test, callback) => { result.tests.push(summary(status, test)); callback?.(); });
emitter.on('test error', (error, test, callback) => { result.tests.push(summary('error', test, error)); callback?.(); });

const dredd = new Dredd({
  endpoint,
  path: [document],
  header: [`Authorization: Bearer ${process.env.DREDD_TOKEN}`],
  hookfiles: [path.join(__dirname, 'hooks.cjs')],
  loglevel: 'warning',
  color: false,
  emitter,
});
let finished = false;
dredd.run((error, stats) => {
  finished = true;
  result.stats = stats;
  result.error = error ? String(error.message || error) : null;
  fs.writeFileSync(resultFile, JSON.stringify(result, null, 2));
});
// An exception inside Dredd's parser callbacks ends in a promise nobody awaits: the
// process then runs out of work without Dredd ever calling back. Say so, not nothing.
process.on('exit', () => {
  if (finished) return;
  result.error = `Dredd ended without finishing its run (${result.tests.length} transactions reported)`;
  fs.writeFileSync(resultFile, JSON.stringify(result, null, 2));
});
