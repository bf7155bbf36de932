import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger, type Logger } from '@tracker/kit';
import { createRedisAclUser, testRedisUrl, type RedisAclUser } from '@tracker/testing';
import { createRedis } from '../src';

/**
 * Every service's Redis client comes from createRedis: a REDIS_URL with a user and a
 * password (Redis ACL, `redis://user:password@host:port/db`) must authenticate, and a
 * wrong password must leave a client that fails its commands at once (the services then
 * work without the cache), logs, and never throws.
 */
let acl: RedisAclUser;
let admin: Redis;

const ready = (redis: Redis) => new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));

beforeAll(async () => {
  // Characters a URL must percent-encode, as a generated password may hold them.
  acl = await createRedisAclUser(`${randomBytes(12).toString('base64url')}:@/%?#`);
  admin = new Redis(testRedisUrl());
});
afterAll(async () => {
  await acl.remove();
  await admin.quit();
});

test('when REDIS_URL carries an ACL user and password, then the client authenticates as that user on the URL database', async () => {
  const url = acl.urlWith();
  expect(url).toMatch(/^redis:\/\/tracker-test-[0-9a-f]+:[^@]+@[^/]+\/\d+$/);
  const redis = createRedis(url, createLogger('test', 'silent'));
  try {
    await ready(redis);
    expect(await redis.call('ACL', 'WHOAMI')).toBe(acl.user);
    const key = `redis-auth-test:${acl.user}`;
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
  const redis = createRedis(acl.urlWith('not-the-password'), logger);
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
