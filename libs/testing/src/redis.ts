/**
 * Each jest worker runs one test file at a time and gets its own Redis database
 * (1–15 by worker id), so keys one system under test relies on globally (the cache
 * freshness key, rate-limit counters) are not touched by another file running beside it.
 */
export function testRedisDb(): number {
  return (Number(process.env.JEST_WORKER_ID ?? 1) % 15) + 1;
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
