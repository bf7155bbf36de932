import { documentedRoutes, publicRoutes, testRedisUrl } from '@tracker/testing';
import { createIssuesService } from '../src/app';
import { loadIssuesConfig } from '../src/config';

// Building the app registers every route without touching the database.
const service = createIssuesService(loadIssuesConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl() }));
afterAll(() => service.close());

test('every /api/v1 route of the issues service is a documented operation of it, and every such operation is a route', () => {
  expect(publicRoutes(service.app)).toEqual(documentedRoutes('issues'));
});
