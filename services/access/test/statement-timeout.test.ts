import { Client } from 'pg';
import { startAccess, type AccessHarness } from './harness';

/**
 * The Prisma adapter's pool bounds every statement as the other services' pools do
 * (DATABASE_STATEMENT_TIMEOUT_MS; 300 ms here): a statement made slow by a lock another
 * session holds is cancelled, answered 503 `service_unavailable` with Retry-After, and
 * changes nothing.
 */
let access: AccessHarness;
beforeAll(async () => {
  access = await startAccess({ DATABASE_STATEMENT_TIMEOUT_MS: '300' });
});
afterAll(() => access.close());

async function holding<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const blocker = new Client({ connectionString: access.schema.databaseUrl });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(`SET LOCAL search_path TO "${access.schema.schema}"`);
    await blocker.query(lock);
    return await work();
  } finally {
    await blocker.query('ROLLBACK').catch(() => undefined);
    await blocker.end();
  }
}

test('then the pool\'s connections run with the configured statement_timeout', async () => {
  expect((await access.service.pool.query('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '300ms' }]);
});

test('when a read waits on a locked table, then 503 service_unavailable with Retry-After, never a hang or a 500', async () => {
  const ws = await access.workspace();
  const started = Date.now();
  const res = await holding('LOCK TABLE users IN ACCESS EXCLUSIVE MODE', () => access.call('GET', '/api/v1/users', { as: ws.admin.principal }));
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
  expect(res.headers.get('retry-after')).toBe('1');
  expect(Date.now() - started).toBeLessThan(4000);
  expect((await access.call('GET', '/api/v1/users', { as: ws.admin.principal })).status).toBe(200);
});

test('when a change waits on a locked row, then 503 and the user is unchanged', async () => {
  const ws = await access.workspace();
  const member = await access.member(ws.id);
  const res = await holding(`SELECT 1 FROM users WHERE id = ${Number(member.id)} FOR UPDATE`, () =>
    access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { name: 'Held' } }),
  );
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ code: 'service_unavailable' });
  const users = (await access.call('GET', '/api/v1/users', { as: ws.admin.principal })).body;
  expect(users.find((u: { id: number }) => u.id === member.id).name).not.toBe('Held');
});
