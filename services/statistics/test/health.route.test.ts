import { createLogger, serve } from '@tracker/kit';
import { freePort, ticketFor } from '@tracker/testing';
import { createStatisticsService } from '../src/app';
import { loadStatisticsConfig } from '../src/config';
import { problem, startStatistics, type StatisticsHarness } from './harness';

let h: StatisticsHarness;
beforeAll(async () => {
  h = await startStatistics();
});
afterAll(() => h.close());

describe('health', () => {
  test('when the database answers, then /healthz and /readyz are ok', async () => {
    expect((await h.call('GET', '/healthz')).body).toEqual({ status: 'ok', service: 'statistics' });
    expect((await h.call('GET', '/readyz')).body).toEqual({ status: 'ready', service: 'statistics', checks: { database: 'ok' } });
  });

  test('when a request id is sent, then it is echoed back', async () => {
    const res = await h.call('GET', '/api/v1/dashboards', { as: h.workspace().admin, headers: { 'x-request-id': 'req-123' } });
    expect(res.headers.get('x-request-id')).toBe('req-123');
  });

  test('when the database is unreachable, then /readyz is 503 and the API answers 503 statistics_unavailable with Retry-After', async () => {
    const config = loadStatisticsConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${await freePort()}/tracker`,
    });
    const service = createStatisticsService(config, { logger: createLogger('test', 'silent') });
    const running = await serve(service.app, { port: 0, host: '127.0.0.1', logger: service.logger, graceMs: 500 });
    try {
      const url = `http://127.0.0.1:${running.port}`;
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      const user = { kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'admin', tokenId: 1 } as const;
      for (const [method, path] of [['POST', '/api/v1/statistics'], ['GET', '/api/v1/dashboards'], ['GET', '/api/v1/dashboards/1/statistics']] as const) {
        const body = method === 'POST' ? '{}' : undefined;
        const principal = ticketFor(user, { audience: 'statistics', method, path, body });
        const res = await fetch(url + path, { method, headers: { 'x-tracker-principal': principal, 'content-type': 'application/json' }, body });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(await res.json()).toEqual(problem(503, 'statistics_unavailable'));
      }
    } finally {
      await running.shutdown();
      await service.close();
    }
  });
});
