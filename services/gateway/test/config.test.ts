import { testRedisUrl } from '@tracker/testing';
import { loadGatewayConfig } from '../src/config';
import { newToken, startFakeAccessForGateway, startGateway } from './harness';

/**
 * The gateway once took BENCH_FIXED_PRINCIPAL (outside production) to run every request
 * as a fixed principal without looking at its token. It is gone: set or not, in any
 * environment, a request without a valid token is 401 and nothing reaches a service.
 */
const principal = { kind: 'user', userId: 3, workspaceId: 2, workspaceRole: 'admin', tokenId: 1 };
const BENCH_ENV = { BENCH_FIXED_PRINCIPAL: JSON.stringify(principal) };

describe('BENCH_FIXED_PRINCIPAL is not honoured', () => {
  test('when it is set, then the configuration holds no fixed principal', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const config = loadGatewayConfig({ NODE_ENV, ...BENCH_ENV });
      expect(JSON.stringify(config)).not.toContain('"userId":3');
      expect(Object.keys(config)).not.toContain('benchFixedPrincipal');
    }
  });

  test('when it is set, then a request without a token, or with a token no one has, is still 401 and no service is called', async () => {
    const access = await startFakeAccessForGateway();
    const gw = await startGateway(access, { REDIS_URL: testRedisUrl(), NODE_ENV: 'development', ...BENCH_ENV });
    try {
      for (const path of ['/api/v1/me', '/api/v1/issues/ABC-1', '/api/v1/queues', '/mcp']) {
        const anonymous = await fetch(gw.url + path);
        expect([path, anonymous.status]).toEqual([path, 401]);
        expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect(access.resolves()).toBe(0);
      // A well-formed token the access service does not know: looked up, refused.
      const unknown = await fetch(`${gw.url}/api/v1/me`, { headers: { authorization: `Bearer ${newToken()}` } });
      expect(unknown.status).toBe(401);
      expect(access.resolves()).toBe(1);
    } finally {
      await gw.close();
      await access.close();
    }
  });
});
