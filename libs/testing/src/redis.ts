import { randomBytes } from 'node:crypto';

/**
 * Each jest worker runs one test file at a time and gets its own Redis database
 * (1–15 by worker id), so keys one system under test relies on globally (the cache
 * freshness key, rate-limit counters) are not touched by another file running beside it.
 * A second jest run on the same machine sets TEST_REDIS_DB_OFFSET to keep off the first's.
 */
export function testRedisDb(): number {
  return ((Number(process.env.JEST_WORKER_ID ?? 1) + Number(process.env.TEST_REDIS_DB_OFFSET ?? 0)) % 15) + 1;
}

/** Empties this worker's Redis database: a test file starts without keys of the previous one. */
export async function flushTestRedis(): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(testRedisUrl());
  try {
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

/**
 * `redisUrl` reached at another host and port (a relay), keeping its user, password and
 * database: never rebuild a Redis URL from its host and port alone.
 */
export function redisUrlVia(port: number, host = '127.0.0.1', redisUrl = testRedisUrl()): string {
  const url = new URL(redisUrl);
  url.hostname = host;
  url.port = String(port);
  return url.toString();
}

export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set: run tests through jest (its global setup finds Redis).');
  const parsed = new URL(url);
  parsed.pathname = `/${testRedisDb()}`;
  return parsed.toString();
}

export interface RedisAclUser {
  user: string;
  password: string;
  /** The test Redis URL (its database kept) as this user, with `password` or another one. */
  urlWith: (password?: string) => string;
  remove: () => Promise<void>;
}

/**
 * A Redis ACL user with every right and a random name and password on the test Redis,
 * for tests of a REDIS_URL that carries credentials; `remove` deletes it.
 */
export async function createRedisAclUser(password = randomBytes(18).toString('base64url')): Promise<RedisAclUser> {
  const user = `tracker-test-${randomBytes(6).toString('hex')}`;
  const { Redis } = await import('ioredis');
  const admin = new Redis(testRedisUrl());
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
  return {
    user,
    password,
    urlWith: (secret = password) => {
      const url = new URL(testRedisUrl());
      url.username = encodeURIComponent(user);
      url.password = encodeURIComponent(secret);
      return url.toString();
    },
    async remove() {
      await admin.call('ACL', 'DELUSER', user);
      await admin.quit();
    },
  };
}
