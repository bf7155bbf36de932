import { Client } from 'pg';
import { startAccess, type AccessHarness } from './harness';

/** With every pool connection busy, a request answers 503 with Retry-After in bounded time, never 500 or a hang. */
let access: AccessHarness;
beforeAll(async () => {
  // A statement limit longer than the pool wait (5 s): the held PATCH must keep the only connection meanwhile
  // (statement-timeout.test.ts checks what the limit itself does).
  access = await startAccess({ DATABASE_POOL_MAX: '1', DATABASE_STATEMENT_TIMEOUT_MS: '30000' });
});
afterAll(() => access.close());

test('when the only pool connection is held, then the next request answers 503 with Retry-After within the pool timeout', async () => {
  const ws = await access.workspace();
  const member = await access.member(ws.id);
  const blocker = new Client({ connectionString: access.schema.databaseUrl });
  await blocker.connect();
  try {
    // The PATCH takes the service's only connection and waits for this row lock.
    await blocker.query('BEGIN');
    await blocker.query(`SELECT id FROM "${access.schema.schema}".workspaces WHERE id = $1 FOR UPDATE`, [ws.id]);
    const held = access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { name: 'Held' } });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const res = await access.call('GET', '/api/v1/users', { as: ws.admin.principal });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeLessThan(8000);
    await blocker.query('ROLLBACK');
    // The held PATCH waited as long as Prisma's interactive-transaction limit (5 s): it
    // either got the lock just in time or was rolled back; both are answers, never a 500.
    const heldStatus = (await held).status;
    expect([200, 503]).toContain(heldStatus);
  } finally {
    await blocker.end();
  }
  expect((await access.call('GET', '/api/v1/users', { as: ws.admin.principal })).status).toBe(200);
});
