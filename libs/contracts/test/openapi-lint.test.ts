import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiDocument } from '../src';

/**
 * The published document through the linters integrators and CI use, with their standard
 * rulesets (test/lint/*.yaml, nothing disabled): zero problems of any severity.
 */

const BIN = path.join(__dirname, '../node_modules/.bin');
const RULESETS = path.join(__dirname, 'lint');
const ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (command: string, args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(path.join(BIN, command), args, { env: ENV, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('the OpenAPI document in the linters', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-lint-'));
    file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
  });

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const redocly = async (target: string) => {
    const result = await run('redocly', ['lint', `--config=${path.join(RULESETS, 'redocly.yaml')}`, '--format=json', target]);
    const report = JSON.parse(result.stdout) as { totals: Record<string, number>; problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }> };
    return { ...report, problems: report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer}: ${p.message}`) };
  };

  const spectral = async (target: string) => {
    const output = path.join(dir, `spectral-${path.basename(target)}.json`);
    const result = await run('spectral', ['lint', '-r', path.join(RULESETS, 'spectral.yaml'), '-f', 'json', '-o', output, '--fail-severity', 'hint', target]);
    if (!fs.existsSync(output)) throw new Error(`spectral wrote no report (exit ${result.code}): ${result.stderr}${result.stdout}`);
    const results = JSON.parse(fs.readFileSync(output, 'utf8')) as Array<{ code: string; severity: number; message: string; path: string[] }>;
    return { code: result.code, problems: results.map((r) => `${['error', 'warn', 'info', 'hint'][r.severity]} ${r.code} at ${r.path.join('.')}: ${r.message}`) };
  };

  test('when Redocly CLI lints it with the recommended ruleset, then there is no error and no warning', async () => {
    const report = await redocly(file);
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  test('when Spectral lints it with the spectral:oas ruleset, then there is no problem of any severity', async () => {
    const report = await spectral(file);
    expect(report.problems).toEqual([]);
    expect(report.code).toBe(0);
  }, 60_000);

  test('when the document is broken, then both linters say so (the checks are not vacuous)', async () => {
    const broken = structuredClone(openApiDocument());
    delete broken.info.contact;
    delete broken.tags[0].description;
    broken.paths['/api/v1/me'].get.responses['200'].content['application/json'].example = { id: 'one' };
    const target = path.join(dir, 'broken.json');
    fs.writeFileSync(target, JSON.stringify(broken));
    expect((await redocly(target)).problems.join('\n')).toMatch(/tag-description/);
    const found = (await spectral(target)).problems.join('\n');
    expect(found).toMatch(/info-contact/);
    expect(found).toMatch(/oas3-valid-media-example/);
  }, 60_000);
});
