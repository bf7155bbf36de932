import { documentedRoutes, publicRoutes, testRedisUrl } from '@tracker/testing';
import { createNotificationsService } from '../src/app';
import { loadNotificationsConfig } from '../src/config';

// Building the app registers every route without touching the database.
const service = createNotificationsService(loadNotificationsConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl() }));
afterAll(() => service.close());

test('every /api/v1 route of the notifications service is a documented operation of it, and every such operation is a route', () => {
  expect(publicRoutes(service.app)).toEqual(documentedRoutes('notifications'));
});
