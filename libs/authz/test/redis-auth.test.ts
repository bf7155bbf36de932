import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger, type Logger } from '@tracker/kit';
import { testRedisUrl } from '@tracker/testing';
import { createRedis } from '../src';

/**
 * Every service's Redis client comes from createRedis: a REDIS_URL with a user and a
 * password (Redis ACL, `redis://user:password@host:port/db`) must authenticate, and a
 * wrong password must leave a client that fails its commands at once (the services then
 * work without the cache), logs, and never throws.
 */
const user = `tracker-test-${randomBytes(6).toString('hex')}`;
// Characters a URL must percent-encode, as a generated password may hold them.
const password = `${randomBytes(12).toString('base64url')}:@/%?#`;
let admin: Redis;

const urlWith = (username: string, secret: string) => {
  const url = new URL(testRedisUrl());
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(secret);
  return url.toString();
};

const ready = (redis: Redis) => new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));

beforeAll(async () => {
  admin = new Redis(testRedisUrl());
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
});
afterAll(async () => {
  await admin.call('ACL', 'DELUSER', user);
  await admin.quit();
});

test('when REDIS_URL carries an ACL user and password, then the client authenticates as that user on the URL database', async () => {
  const url = urlWith(user, password);
  expect(url).toMatch(/^redis:\/\/tracker-test-[0-9a-f]+:[^@]+@[^/]+\/\d+$/);
  const redis = createRedis(url, createLogger('test', 'silent'));
  try {
    await ready(redis);
    expect(await redis.call('ACL', 'WHOAMI')).toBe(user);
    const key = `redis-auth-test:${user}`;
    await redis.set(key, 'written by the ACL user', 'EX', 60);
    // The same database as the URL without credentials names.
    expect(await admin.get(key)).toBe('written by the ACL user');
    await admin.del(key);
  } finally {
    await redis.quit();
  }
});

test('when the password is wrong, then commands fail at once, the failure is logged, and nothing throws', async () => {
  const warnings: unknown[] = [];
  const logger = Object.assign(createLogger('test', 'silent'), { warn: (fields: unknown) => warnings.push(fields) }) as unknown as Logger;
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  const redis = createRedis(urlWith(user, 'not-the-password'), logger);
  try {
    const deadline = Date.now() + 5000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(JSON.stringify(warnings[0])).toMatch(/WRONGPASS|invalid username-password/i);
    expect(redis.status).not.toBe('ready');
    const started = Date.now();
    await expect(redis.get('anything')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(500);
    // Warnings are rate-limited (one per 10 s) however often it reconnects.
    await new Promise((r) => setTimeout(r, 1000));
    expect(warnings.length).toBe(1);
    expect(unhandled).toEqual([]);
  } finally {
    // Between two attempts, so no connection attempt (and its connect timer) outlives the test.
    for (let i = 0; i < 100 && redis.status !== 'reconnecting'; i++) await new Promise((r) => setTimeout(r, 10));
    redis.disconnect();
    process.off('unhandledRejection', onUnhandled);
  }
});
