import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { CLOCK_SKEW_SECONDS, createLogger, TICKET_TTL_SECONDS } from '@tracker/kit';
import { testRedisUrl } from '@tracker/testing';
import { redisSeenTickets } from '../src';

/**
 * A replica accepts a ticket until exp + skew by its own clock; another replica whose
 * clock runs the skew behind accepts it until exp + 2 × skew of the first one's time. The
 * shared memory of accepted ticket ids must outlive both, or the ticket can be replayed
 * at the slower replica.
 */
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(testRedisUrl());
  await redis.ping();
});
afterAll(async () => {
  await redis.quit();
});

test('when a ticket is accepted, then its id is kept in Redis until exp plus twice the clock skew', async () => {
  const seen = redisSeenTickets(redis, createLogger('test', 'silent'));
  const exp = Math.floor(Date.now() / 1000) + TICKET_TTL_SECONDS;
  const expiresAt = (exp + CLOCK_SKEW_SECONDS) * 1000; // what checkTicket reports: this replica's deadline
  const id = randomUUID();
  expect(await seen.firstSight('issues', id, expiresAt)).toBe(true);
  const ttlMs = await redis.pttl(`seen:issues:${id}`);
  const keptUntil = Date.now() + ttlMs;
  expect(keptUntil).toBeGreaterThanOrEqual((exp + 2 * CLOCK_SKEW_SECONDS) * 1000 - 50);
  expect(keptUntil).toBeLessThanOrEqual((exp + 2 * CLOCK_SKEW_SECONDS) * 1000 + 50);
  expect(await seen.firstSight('issues', id, expiresAt)).toBe(false);
});

test('when another replica (its own process memory) is offered the same ticket, then Redis refuses it', async () => {
  const expiresAt = Date.now() + (TICKET_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000;
  const id = randomUUID();
  const logger = createLogger('test', 'silent');
  expect(await redisSeenTickets(redis, logger).firstSight('access', id, expiresAt)).toBe(true);
  expect(await redisSeenTickets(redis, logger).firstSight('access', id, expiresAt)).toBe(false);
});
