import { createLogger, serve } from '@tracker/kit';
import { createIssuesService } from '../src/app';
import { loadIssuesConfig } from '../src/config';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

describe('health and routing', () => {
  test('when the database is reachable, then /healthz and /readyz answer 200', async () => {
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', service: 'issues', checks: { database: 'ok' } });
  });

  test('when the database is unreachable, then /readyz answers 503 and /healthz still 200', async () => {
    const service = createIssuesService(
      loadIssuesConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' }),
    );
    const running = await serve(service.app, { port: 0, host: '127.0.0.1', logger: createLogger('test', 'silent'), graceMs: 500, closers: [service.close] });
    try {
      const url = `http://127.0.0.1:${running.port}`;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: { database: 'unavailable' } });
    } finally {
      await running.shutdown();
    }
  });

  test('when the server drops an idle pooled connection, then the service logs it and goes on answering', async () => {
    const client = await h.service.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    client.release();
    const [killed] = await h.schema.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [rows[0]!.pid]);
    expect(killed!.done).toBe(true);
    // Without a listener the pool's 'error' event would be thrown as an uncaught exception.
    expect(h.service.pool.listenerCount('error')).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    const ws = await h.workspace();
    expect((await h.call('GET', '/api/v1/queues', { as: ws.admin })).status).toBe(200);
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
  });

  test('when /api/v1 is called without a signed principal, then 401 problem', async () => {
    for (const path of ['/api/v1/queues', '/api/v1/issues/OPS-1']) {
      const res = await h.call('GET', path);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body).toEqual(problem(401, 'unauthorized'));
    }
  });

  test('when a signed caller asks for an unknown route or method, then 404 problem', async () => {
    const ws = await h.workspace();
    for (const [method, path] of [['GET', '/api/v1/nothing-here'], ['DELETE', '/api/v1/queues/1'], ['PUT', '/api/v1/issues/OPS-1']]) {
      const res = await h.call(method!, path!, { as: ws.admin });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  test('every answer carries a request id and no-store', async () => {
    const ws = await h.workspace();
    const res = await h.call('GET', '/api/v1/queues', { as: ws.admin, headers: { 'x-request-id': 'req-123' } });
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('when a change is made, then its event carries the request id', async () => {
    const ws = await h.workspace();
    const res = await h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'RID', name: 'x' }, headers: { 'x-request-id': 'req-queue-1' } });
    expect((await h.outbox('queue', res.body.id))[0]!.payload.request_id).toBe('req-queue-1');
    expect(h.access.calls.find((c) => c.path === '/internal/queues' && (c.body as { queue_id: number }).queue_id === res.body.id)).toBeDefined();
  });
});
