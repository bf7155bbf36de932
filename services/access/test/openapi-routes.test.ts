import { documentedRoutes, publicRoutes, testRedisUrl } from '@tracker/testing';
import { createAccessService } from '../src/app';
import { loadAccessConfig } from '../src/config';

// Building the app registers every route without touching the database.
const service = createAccessService(loadAccessConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl() }));
afterAll(() => service.close());

test('every /api/v1 route of the access service is a documented operation of it, and every such operation is a route', () => {
  expect(publicRoutes(service.app)).toEqual(documentedRoutes('access'));
});
