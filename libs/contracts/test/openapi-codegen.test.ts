import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { API_OPERATIONS, openApiDocument } from '../src';

/**
 * Integrators feed the published document to stock generators with their default options.
 * openapi-typescript (the usual one for TypeScript) makes a property with a `default`
 * required (`defaultNonNullable: true`) unless the schema sits inline under a requestBody or
 * a parameter: so request bodies published as components must not carry the keyword (the
 * default is stated in the description instead). This runs the generator as an integrator
 * would and type-checks ordinary requests to every operation against what it produced.
 */

const SCENARIO = path.join(__dirname, 'fixtures/client-scenario.ts.txt');

/** openapi-typescript's output for `document`, with its default options (generate-types.mjs). */
function generate(document: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(__dirname, 'generate-types.mjs')], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin!.end(JSON.stringify(document));
  });
}

function typeCheck(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((file) => path.join(dir, file)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: false,
    },
  );
  const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
  return ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, host).trim());
}

describe('the document in openapi-typescript with its default options', () => {
  let dir: string;
  let generated: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-codegen-'));
    generated = await generate(openApiDocument());
    fs.writeFileSync(path.join(dir, 'api.d.ts'), generated);
    fs.copyFileSync(SCENARIO, path.join(dir, 'scenario.ts'));
    // The scenario imports openapi-fetch as an integrator's project would.
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(path.dirname(require.resolve('openapi-fetch/package.json')), path.join(dir, 'node_modules', 'openapi-fetch'), 'dir');
  }, 60_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('when ordinary requests to every operation are type-checked against the generated types, then there is no diagnostic', () => {
    const diagnostics = typeCheck(dir, ['scenario.ts', 'api.d.ts']);
    // On failure: the document makes a generator refuse what the API accepts (or the scenario is wrong).
    expect(diagnostics).toEqual([]);
  }, 60_000);

  test('then the scenario calls every operation of API_OPERATIONS (a new operation must be added to it)', () => {
    const scenario = fs.readFileSync(SCENARIO, 'utf8');
    const named = [...scenario.slice(scenario.indexOf('export const scenario')).matchAll(/^ {2}(\w+): \(\) =>/gm)].map((m) => m[1]);
    expect([...new Set(named)].sort()).toEqual(expect.arrayContaining(API_OPERATIONS.map((o) => o.operationId).sort()));
    for (const operation of API_OPERATIONS) {
      expect([operation.operationId, scenario.includes(`'${operation.path}'`)]).toEqual([operation.operationId, true]);
    }
  });

  test('when a scenario breaks the contract, then the check reports it (the check is not vacuous)', () => {
    const broken = fs
      .readFileSync(SCENARIO, 'utf8')
      .replace("body: { queue_id: 1, title: 't' }", "body: { title: 't' }")
      .replace("body: { minutes: 30 }", "body: { minutes: '30' }");
    fs.writeFileSync(path.join(dir, 'broken.ts'), broken);
    const diagnostics = typeCheck(dir, ['broken.ts', 'api.d.ts']);
    expect(diagnostics.join('\n')).toMatch(/queue_id/);
    expect(diagnostics.join('\n')).toMatch(/string.*number|number.*string/);
  }, 60_000);

  test('then request fields with a default are optional, and the reason: with the keyword the default run would require them', async () => {
    const body = (name: string, text: string) => text.slice(text.indexOf(`        ${name}: {`), text.indexOf('\n        };', text.indexOf(`        ${name}: {`)));
    expect(body('IssueCreate', generated)).toMatch(/priority\?: /);
    expect(body('Filters', generated)).toMatch(/mine\?: boolean/);
    expect(body('Widget', generated)).toMatch(/title\?: string/);
    // Answers keep every field required.
    expect(body('DashboardWidget', generated)).toMatch(/title: string/);

    const withDefault = structuredClone(openApiDocument());
    withDefault.components.schemas.IssueCreate.properties.priority.default = 'normal';
    expect(body('IssueCreate', await generate(withDefault))).toMatch(/priority: /);
  }, 60_000);
});
