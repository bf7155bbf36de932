import { hostPort, redisUrlVia } from '../src';

/** Relays must carry a Redis URL's user, password and database along (REDIS_URL with ACL credentials). */
describe('Redis URLs through a relay', () => {
  test('when a URL with a user, a password and a database is moved to a relay port, then all three are kept', () => {
    const moved = redisUrlVia(40123, '127.0.0.1', 'redis://tracker-app:p%40ss%3Aw0rd@redis.internal:6380/7');
    expect(moved).toBe('redis://tracker-app:p%40ss%3Aw0rd@127.0.0.1:40123/7');
    const parsed = new URL(moved);
    expect([decodeURIComponent(parsed.username), decodeURIComponent(parsed.password), parsed.pathname]).toEqual(['tracker-app', 'p@ss:w0rd', '/7']);
  });

  test('when a URL has only a password (requirepass), then it is kept', () => {
    expect(redisUrlVia(40123, '127.0.0.1', 'redis://:secret@10.0.0.5:6379/2')).toBe('redis://:secret@127.0.0.1:40123/2');
  });

  test.each([
    ['redis://user:pw@redis.internal:6380/3', ['redis.internal', 6380]],
    ['redis://redis.internal/3', ['redis.internal', 6379]],
    ['amqp://guest:guest@mq.internal', ['mq.internal', 5672]],
    ['redis://[::1]:7000', ['::1', 7000]],
  ])('hostPort(%s) is %j', (url, expected) => {
    expect(hostPort(url)).toEqual(expected);
  });
});
