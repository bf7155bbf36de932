import { Writable } from 'node:stream';
import pino from 'pino';
import { createServiceApp } from '../src/app';
import { createMetrics } from '../src/metrics';
import { serve, type RunningServer } from '../src/server';
import { as, ticketedFetch as fetch, ticketOptions } from './tickets';

/** Every request's first layer (app.ts requestContext): its id, access log line and metrics, written when it is answered. */
describe('the access log and metrics of a service app', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => done(void lines.push(JSON.parse(String(chunk)))) }));
  const metrics = createMetrics('test');
  const user = as({ kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'member', tokenId: 1 });
  let running: RunningServer;
  let base: string;
  beforeAll(async () => {
    const app = createServiceApp({
      ...ticketOptions(),
      logger,
      metrics,
      routes: (router) => {
        router.get('/api/v1/things/:id', (_req, res) => {
          res.json({ ok: true });
        });
      },
    });
    running = await serve(app, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }), graceMs: 200 });
    base = `http://127.0.0.1:${running.port}`;
  });
  afterAll(() => running.shutdown());
  beforeEach(() => {
    lines.length = 0;
    metrics.registry.resetMetrics();
  });

  const counted = async () => (await metrics.registry.getSingleMetric('http_requests_total')!.get()).values.map((v) => ({ ...v.labels, value: v.value }));
  const requestLines = () => lines.filter((line) => line.msg === 'request');
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  test('an answered request: one log line with its id and path as sent, counted under its route template', async () => {
    const res = await fetch(`${base}/api/v1/things/42?x=1`, { headers: { ...user, 'x-request-id': 'req-1' } });
    expect(res.status).toBe(200);
    await settle();
    expect(requestLines()).toEqual([expect.objectContaining({ rid: 'req-1', method: 'GET', path: '/api/v1/things/42', status: 200, ms: expect.any(Number) })]);
    expect(await counted()).toEqual([{ method: 'GET', route: '/api/v1/things/:id', status: '200', value: 1 }]);
  });

  test('a refused ticket: its reason and the request line carry the same generated id', async () => {
    const res = await fetch(`${base}/api/v1/things/42`);
    expect(res.status).toBe(401);
    await settle();
    const rid = res.headers.get('x-request-id');
    expect(lines.filter((line) => line.msg === 'ticket refused' || line.msg === 'request').map((line) => line.rid)).toEqual([rid, rid]);
    expect(await counted()).toEqual([{ method: 'GET', route: 'unmatched', status: '401', value: 1 }]);
  });

  test('OPTIONS is 404, logged and counted; /healthz and /readyz are neither', async () => {
    expect((await fetch(`${base}/api/v1/things/42`, { method: 'OPTIONS' })).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await settle();
    expect(requestLines().map((line) => [line.method, line.path, line.status])).toEqual([['OPTIONS', '/api/v1/things/42', 404]]);
    expect(await counted()).toEqual([{ method: 'OPTIONS', route: 'unmatched', status: '404', value: 1 }]);
  });

  test('many distinct paths, with a ticket or without, counted under the route\'s template or unmatched: a fixed set of series', async () => {
    const paths = Array.from({ length: 300 }, (_, i) => `/api/v1/things/${i}${i % 2 ? '' : '/x'.repeat(i)}`);
    await Promise.all(paths.map((path, i) => fetch(`${base}${path}`, { headers: i % 3 ? user : {} })));
    await settle();
    expect(new Set((await counted()).map((series) => (series as { route?: unknown }).route))).toEqual(new Set(['/api/v1/things/:id', 'unmatched']));
  });
});
