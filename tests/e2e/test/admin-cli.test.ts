import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestSchema, testRedisUrl, type TestSchema } from '@tracker/testing';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

let schema: TestSchema;
beforeAll(async () => {
  schema = await createTestSchema('cli', path.join(REPO_ROOT, 'services/access/prisma/migrations'));
});
afterAll(() => schema.drop());

/** `pnpm -s admin …` exactly as an operator or another tool runs it. */
async function admin(...args: string[]) {
  try {
    const { stdout, stderr } = await run('pnpm', ['-s', 'admin', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: schema.databaseUrl, DATABASE_SCHEMA: schema.schema, REDIS_URL: testRedisUrl() },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);

// Each command is a process of its own (pnpm, then tsx compiling the command line), a few
// seconds each on a loaded 2-CPU machine; the first test runs eight of them.
jest.setTimeout(120_000);

describe('operator command line', () => {
  test('when every command runs with --json, then each prints its contract object on the last line', async () => {
    const ws = await admin('workspace', 'create', '--name', 'Acme', '--admin-name', 'Ada', '--json');
    expect(ws.code).toBe(0);
    const created = lastJson(ws.stdout);
    expect(created).toEqual({ workspace_id: expect.any(Number), user_id: expect.any(Number), token: expect.stringMatching(/^trk_[0-9A-Za-z]{32,}$/) });

    const user = lastJson((await admin('user', 'add', '--workspace', String(created.workspace_id), '--name', 'Bob', '--role', 'admin', '--json')).stdout);
    expect(user).toEqual({ user_id: expect.any(Number), token: expect.stringMatching(/^trk_/) });
    const [row] = await schema.query(`SELECT role::text, workspace_id FROM "${schema.schema}".users WHERE id = $1`, [user.user_id]);
    expect(row).toEqual({ role: 'admin', workspace_id: created.workspace_id });

    const token = lastJson((await admin('token', 'create', '--user', String(user.user_id), '--json')).stdout);
    expect(token).toEqual({ token_id: expect.any(Number), token: expect.stringMatching(/^trk_/) });

    const revoked = await admin('token', 'revoke', '--token-id', String(token.token_id), '--json');
    expect(lastJson(revoked.stdout)).toEqual({ token_id: token.token_id, revoked: true });
    // Revoking again is idempotent.
    expect(lastJson((await admin('token', 'revoke', '--token-id', String(token.token_id), '--json')).stdout)).toEqual({ token_id: token.token_id, revoked: true });
  });

  test('tokens are stored only as SHA-256 hashes', async () => {
    const created = lastJson((await admin('workspace', 'create', '--name', 'Hashco', '--admin-name', 'Ada', '--json')).stdout);
    const rows = await schema.query<{ hash: string; hint: string }>(`SELECT hash, hint FROM "${schema.schema}".tokens`);
    const { createHash } = await import('node:crypto');
    expect(rows.map((r) => r.hash)).toContain(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(created.token);
  });

  test('without --json, the output is for people and still shows the token once', async () => {
    const res = await admin('workspace', 'create', '--name', 'Plain', '--admin-name', 'Ada');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Workspace \d+ created/);
    expect(res.stdout).toMatch(/trk_[0-9A-Za-z]{40}/);
  });

  test.each([
    [[], 'No command given'],
    [['workspace', 'delete'], 'Unknown command'],
    [['workspace', 'create', '--name', 'A'], '--admin-name: is required'],
    [['workspace', 'create', '--name', '', '--admin-name', 'A'], '--name: must not be empty'],
    [['workspace', 'create', '--name', 'x'.repeat(101), '--admin-name', 'A'], '--name: must be at most 100 characters'],
    [['user', 'add', '--workspace', 'abc', '--name', 'A'], '--workspace: must be an integer greater than 0'],
    [['user', 'add', '--workspace', '1', '--name', 'A', '--role', 'owner'], '--role'],
    [['token', 'create', '--user', '1', '--bogus'], "Unknown option '--bogus'"],
    [['token', 'revoke'], '--token-id: is required'],
  ])('when the arguments are %j, then exit 64 with the reason and the usage', async (args, reason) => {
    const res = await admin(...args);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain(reason);
    expect(res.stderr).toContain('Usage: pnpm -s admin');
    expect(res.stdout).toBe('');
  });

  test.each([
    [['user', 'add', '--workspace', '999999', '--name', 'A', '--json'], 'Workspace 999999 does not exist'],
    [['token', 'create', '--user', '999999', '--json'], 'User 999999 does not exist'],
    [['token', 'revoke', '--token-id', '999999', '--json'], 'Token 999999 does not exist'],
  ])('when %j names something that does not exist, then exit 1 with one clear line', async (args, message) => {
    const res = await admin(...args);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(`Error: ${message}.`);
  });

  test('when the database is not migrated, then exit 1 saying to run pnpm migrate', async () => {
    const { Client } = await import('pg');
    const empty = `t_cliempty_${Date.now().toString(36)}_${Math.random().toString(16).slice(2, 10)}`;
    const client = new Client({ connectionString: schema.databaseUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA "${empty}"`);
    try {
      const res = await run('pnpm', ['-s', 'admin', 'token', 'create', '--user', '1'], {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: schema.databaseUrl, DATABASE_SCHEMA: empty, REDIS_URL: testRedisUrl() },
      }).catch((e) => e);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('pnpm migrate');
    } finally {
      await client.query(`DROP SCHEMA "${empty}" CASCADE`);
      await client.end();
    }
  });
});
