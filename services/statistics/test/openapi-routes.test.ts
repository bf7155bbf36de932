import { documentedRoutes, publicRoutes, testRedisUrl } from '@tracker/testing';
import { createStatisticsService } from '../src/app';
import { loadStatisticsConfig } from '../src/config';

// Building the app registers every route without touching the database.
const service = createStatisticsService(loadStatisticsConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl() }));
afterAll(() => service.close());

test('every /api/v1 route of the statistics service is a documented operation of it, and every such operation is a route', () => {
  expect(publicRoutes(service.app)).toEqual(documentedRoutes('statistics'));
});
