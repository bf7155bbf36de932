import { type AmqpTestNames, testAmqpUrl } from './amqp';
import type { TestSchema } from './database';
import { testRedisUrl } from './redis';

/**
 * What every service under test is started with: test mode, no log output, its own
 * schema and the test Redis. A harness adds the upstreams and settings of its service.
 */
export function serviceTestEnv(schema: TestSchema): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: schema.databaseUrl,
    DATABASE_SCHEMA: schema.schema,
    REDIS_URL: testRedisUrl(),
  };
}

/**
 * An event consumer's settings under test: the test broker, retries after 100 ms and at
 * most 3 attempts (so a failing event reaches the dead-letter queue in well under a second),
 * and, given `amqp`, the test's own exchange and `queue`.
 */
export function consumerTestEnv(amqp: AmqpTestNames | null, queue: string): Record<string, string> {
  return {
    AMQP_URL: testAmqpUrl(),
    EVENTS_RETRY_DELAY_MS: '100',
    EVENTS_MAX_ATTEMPTS: '3',
    ...(amqp ? { EVENTS_EXCHANGE: amqp.exchange, EVENTS_QUEUE: queue } : {}),
  };
}
