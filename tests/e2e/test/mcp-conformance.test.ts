import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { seedWorkspace, startHeaderRelay, startSystem, type HeaderRelay, type System } from '@tracker/system-tests-support';

/**
 * The MCP conformance suite (npm @modelcontextprotocol/conformance, pinned in package.json)
 * in server mode against the system's /mcp. The suite's client cannot send an
 * Authorization header, so it talks to a relay that adds a seeded user's token and passes
 * everything else through unchanged. Which scenarios apply, and what the others report
 * against this server: ../CONFORMANCE.md.
 */
const run = promisify(execFile);
const CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

/** The scenarios that apply to a server with tools only, each with the checks it must report, all SUCCESS. */
const APPLICABLE: Record<string, string[]> = {
  'server-initialize': ['server-initialize'],
  ping: ['ping'],
  'tools-list': ['tools-list'],
};

const SUITE_TOOL = (tool: string) => `calls the suite's own test tool ${tool}; Tracker's tools are its REST operations`;
const NO_CAPABILITY = (capability: string) => `needs the ${capability} capability, which the server does not declare`;

/** Every other server scenario of the pinned version, and why it does not apply here. */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': NO_CAPABILITY('logging'),
  'completion-complete': NO_CAPABILITY('completions'),
  'tools-call-simple-text': SUITE_TOOL('test_simple_text'),
  'tools-call-image': SUITE_TOOL('test_image_content'),
  'tools-call-audio': SUITE_TOOL('test_audio_content'),
  'tools-call-embedded-resource': SUITE_TOOL('test_embedded_resource'),
  'tools-call-mixed-content': SUITE_TOOL('test_multiple_content_types'),
  'tools-call-with-logging': `${SUITE_TOOL('test_tool_with_logging')}, after logging/setLevel (no logging capability)`,
  'tools-call-error': SUITE_TOOL('test_error_handling'),
  'tools-call-with-progress': SUITE_TOOL('test_tool_with_progress'),
  'tools-call-sampling': SUITE_TOOL('test_sampling'),
  'tools-call-elicitation': SUITE_TOOL('test_elicitation'),
  'json-schema-2020-12': `lists tools and looks for the suite's own json_schema_2020_12_tool`,
  'elicitation-sep1034-defaults': SUITE_TOOL('test_elicitation_sep1034_defaults'),
  'elicitation-sep1330-enums': SUITE_TOOL('test_elicitation_sep1330_enums'),
  'server-sse-polling': 'needs a session and the test_reconnection tool answering on an SSE stream; the server is stateless and answers JSON',
  'server-sse-multiple-streams': 'needs a session id; the server is stateless (only WARNINGs, no checks run)',
  'resources-list': NO_CAPABILITY('resources'),
  'resources-read-text': NO_CAPABILITY('resources'),
  'resources-read-binary': NO_CAPABILITY('resources'),
  'resources-templates-read': NO_CAPABILITY('resources'),
  'resources-subscribe': NO_CAPABILITY('resources'),
  'resources-unsubscribe': NO_CAPABILITY('resources'),
  'prompts-list': NO_CAPABILITY('prompts'),
  'prompts-get-simple': NO_CAPABILITY('prompts'),
  'prompts-get-with-args': NO_CAPABILITY('prompts'),
  'prompts-get-embedded-resource': NO_CAPABILITY('prompts'),
  'prompts-get-with-image': NO_CAPABILITY('prompts'),
  'dns-rebinding-protection':
    'for localhost servers without authentication; here the bearer token is the protection (a browser does not send it), and the test below shows a rebinding request refused',
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  details?: Record<string, any>;
}

/** One scenario through the suite's command line; the checks it wrote (checks.json), not its console output. */
async function runScenario(url: string, scenario: string): Promise<Check[]> {
  const outputDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-conformance-'));
  try {
    // It exits 1 when a check fails; the checks say which and why.
    const failed = await run(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '--output-dir', outputDir], { timeout: 20_000 }).then(
      () => null,
      (error: Error & { stdout?: string; stderr?: string }) => error,
    );
    // It writes <output-dir>/server-<scenario>-<timestamp>/checks.json.
    const [resultDir] = await readdir(outputDir);
    const text = resultDir && (await readFile(path.join(outputDir, resultDir, 'checks.json'), 'utf8').catch(() => undefined));
    if (!text) throw new Error(`the suite wrote no checks for ${scenario}: ${failed?.stderr || failed?.stdout || failed?.message}`);
    return JSON.parse(text);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** A check as one readable line, so a failure shows the suite's own message. */
const line = (check: Check) => `${check.id}: ${check.status}${check.errorMessage ? ` (${check.errorMessage})` : ''}`;

let system: System;
let relay: HeaderRelay;
beforeAll(async () => {
  system = await startSystem();
  const ws = await seedWorkspace(system);
  relay = await startHeaderRelay(system.gatewayUrl, { Authorization: `Bearer ${ws.admin.token}` });
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await system?.stop();
});

test('every server scenario of the pinned suite is either run here or listed with the reason it does not apply', async () => {
  const { stdout } = await run(process.execPath, [CLI, 'list', '--server'], { timeout: 20_000 });
  const listed = [...stdout.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]!);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.sort()).toEqual([...Object.keys(APPLICABLE), ...Object.keys(NOT_APPLICABLE)].sort());
});

test.each(Object.entries(APPLICABLE))('the suite scenario %s passes against /mcp behind the bearer token', async (scenario, checkIds) => {
  const checks = await runScenario(`${relay.url}/mcp`, scenario);
  // INFO entries are the suite's notes (requests it sent), not checks.
  expect(checks.filter((check) => check.status !== 'INFO').map(line)).toEqual(checkIds.map((id) => `${id}: SUCCESS`));
});

test('a DNS-rebinding request (foreign Host and Origin) carries no token, so the gateway refuses it with 401', async () => {
  // The scenario straight at the gateway, without the relay: what a page that rebinds a
  // name to this host could send. The token, not a Host check, is what stops it; the
  // scenario's other check (a localhost Host accepted) cannot pass without a token either.
  const checks = await runScenario(`${system.gatewayUrl}/mcp`, 'dns-rebinding-protection');
  const rejected = checks.find((check) => check.id === 'localhost-host-rebinding-rejected');
  expect(rejected).toMatchObject({ status: 'SUCCESS', details: { hostHeader: 'evil.example.com', statusCode: 401 } });
  expect(checks.find((check) => check.id === 'localhost-host-valid-accepted')).toMatchObject({ details: { statusCode: 401 } });
});
