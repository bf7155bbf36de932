import { createLogger, serve, signPrincipal, type RunningServer } from '@tracker/kit';
import { createIssuesService } from '../src/app';
import { loadIssuesConfig } from '../src/config';

const SECRET = 'issues-component-test-secret-0123456789abcdef';
let running: RunningServer;
let url: string;

beforeAll(async () => {
  const service = createIssuesService(loadIssuesConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', INTERNAL_SECRET: SECRET }));
  running = await serve(service.app, { port: 0, host: '127.0.0.1', logger: createLogger('test', 'silent'), graceMs: 500 });
  url = `http://127.0.0.1:${running.port}`;
});
afterAll(() => running.shutdown());

describe('issues service before its API exists', () => {
  test('health endpoints answer', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({ status: 'ready', service: 'issues' });
  });

  test('when /api/v1 is called without a signed principal, then 401', async () => {
    const res = await fetch(`${url}/api/v1/queues`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  test('when a signed caller asks for a route that does not exist yet, then 404 problem', async () => {
    const principal = signPrincipal({ kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'admin', tokenId: 1 }, SECRET);
    const res = await fetch(`${url}/api/v1/nothing-here`, { headers: { 'x-tracker-principal': principal } });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe('not_found');
  });
});
