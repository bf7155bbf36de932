import { z } from 'zod';
import { databaseConfigOf, databaseEnv, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, DEFAULT_STATEMENT_TIMEOUT_MS, redisEnv } from '@tracker/kit';
import { consumerConfigOf, consumerEnv, DEFAULT_AMQP_URL, outboxConfigOf, outboxEnv } from '../src/config';

// A publisher's schema as the issues service builds it: the kit's fragments and the outbox's side by side.
describe('the outbox fragment, spread beside the kit\'s', () => {
  const Fragments = z.object({ ...databaseEnv('issues'), ...outboxEnv, ...redisEnv }).transform((env) => ({
    database: databaseConfigOf(env),
    outbox: outboxConfigOf(env),
    redis: env.REDIS_URL,
  }));

  test('when nothing is set, then every default is used (the schema given to databaseEnv included)', () => {
    expect(Fragments.parse({})).toEqual({
      database: { url: DEFAULT_DATABASE_URL, schema: 'issues', poolMax: 10, statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS },
      outbox: { amqpUrl: DEFAULT_AMQP_URL, pollIntervalMs: 100, retentionHours: 24, exchange: 'tracker.events' },
      redis: DEFAULT_REDIS_URL,
    });
  });

  test('when values are set, then they are read under the same names', () => {
    const env = {
      DATABASE_URL: 'postgresql://app@db:5432/x',
      DATABASE_SCHEMA: 'issues_test',
      DATABASE_POOL_MAX: '20',
      DATABASE_STATEMENT_TIMEOUT_MS: '250',
      AMQP_URL: 'amqp://broker:5672',
      OUTBOX_POLL_MS: '10',
      OUTBOX_RETENTION_HOURS: '48',
      EVENTS_EXCHANGE: 'test.events-1',
      REDIS_URL: 'redis://cache:6379',
    };
    expect(Fragments.parse(env)).toEqual({
      database: { url: env.DATABASE_URL, schema: 'issues_test', poolMax: 20, statementTimeoutMs: 250 },
      outbox: { amqpUrl: env.AMQP_URL, pollIntervalMs: 10, retentionHours: 48, exchange: 'test.events-1' },
      redis: env.REDIS_URL,
    });
  });

  // The kit's own fragments' refusals are the kit's tests (libs/kit/test/config.test.ts).
  test.each([
    ['OUTBOX_POLL_MS', '9'],
    ['OUTBOX_POLL_MS', '60001'],
    ['EVENTS_EXCHANGE', 'has space'],
    ['AMQP_URL', 'not a url'],
  ])('when %s is %j, then it is refused', (name, value) => {
    const result = Fragments.safeParse({ [name]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([name]);
  });
});

describe('the consumer fragment', () => {
  const Consumer = z.object(consumerEnv).transform(consumerConfigOf);

  test('when nothing is set, then every default is used', () => {
    expect(Consumer.parse({})).toEqual({ amqpUrl: DEFAULT_AMQP_URL, exchange: 'tracker.events', queue: undefined, prefetch: 300, maxAttempts: 5, retryDelayMs: 1000 });
  });

  test('when values are set, then they are read under the same names', () => {
    const env = { AMQP_URL: 'amqp://broker:5672', EVENTS_EXCHANGE: 'test.events-1', EVENTS_QUEUE: 'test.queue', EVENTS_PREFETCH: '10', EVENTS_MAX_ATTEMPTS: '2', EVENTS_RETRY_DELAY_MS: '0' };
    expect(Consumer.parse(env)).toEqual({ amqpUrl: env.AMQP_URL, exchange: 'test.events-1', queue: 'test.queue', prefetch: 10, maxAttempts: 2, retryDelayMs: 0 });
  });

  test.each([
    ['EVENTS_QUEUE', 'has space'],
    ['EVENTS_PREFETCH', '0'],
    ['EVENTS_PREFETCH', '501'],
    ['EVENTS_MAX_ATTEMPTS', '0'],
    ['EVENTS_RETRY_DELAY_MS', '600001'],
    ['AMQP_URL', 'not a url'],
  ])('when %s is %j, then it is refused', (name, value) => {
    const result = Consumer.safeParse({ [name]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([name]);
  });
});
