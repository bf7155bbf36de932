import { randomBytes } from 'node:crypto';

export function testAmqpUrl(): string {
  const url = process.env.TEST_AMQP_URL;
  if (!url) throw new Error('TEST_AMQP_URL is not set: run tests through jest (its global setup finds RabbitMQ).');
  return url;
}

/** A broker URL (the test broker's by default) with its host and port replaced, e.g. by a startTcpProxy in front of it (credentials, vhost and query kept). */
export function amqpUrlVia(port: number, host = '127.0.0.1', brokerUrl = testAmqpUrl()): string {
  const url = new URL(brokerUrl);
  url.hostname = host;
  url.port = String(port);
  return url.toString();
}

/** What deleting needs of an amqplib channel (the main entry of this library does not load amqplib). */
export interface AmqpAdminChannel {
  deleteQueue(queue: string): Promise<unknown>;
  deleteExchange(exchange: string): Promise<unknown>;
}

export interface AmqpTestNames {
  /** `<label>_<created base36>_<random>`, unique to this call. */
  suffix: string;
  /** `tracker.events.<suffix>`: pass it as the `exchange` option of the relay and the consumer. */
  exchange: string;
  /** `<name>.<suffix>`; remembered, so cleanup deletes it with its `.dead`, `.dlq` and `.retry` queues. */
  queue: (name: string) => string;
  /** Deletes every queue handed out (and its `.dead`/`.dlq`/`.retry` siblings), the exchange and its `.dlx`. */
  cleanup: (channel: AmqpAdminChannel) => Promise<void>;
}

/**
 * Gives a test its own exchange and queues on the shared broker, so test files running in
 * parallel never consume each other's messages (the real exchange name is a constant).
 */
export function amqpTestNames(label: string): AmqpTestNames {
  const suffix = `${label.replace(/[^a-z0-9]/gi, '').toLowerCase()}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const exchange = `tracker.events.${suffix}`;
  const queues = new Set<string>();
  return {
    suffix,
    exchange,
    queue: (name) => {
      const queue = `${name}.${suffix}`;
      queues.add(queue);
      return queue;
    },
    cleanup: async (channel) => {
      // Deleting a queue or exchange that does not exist succeeds on RabbitMQ 3.x.
      for (const queue of queues) {
        for (const name of [queue, `${queue}.dead`, `${queue}.dlq`, `${queue}.retry`]) await channel.deleteQueue(name);
      }
      await channel.deleteExchange(exchange);
      await channel.deleteExchange(`${exchange}.dlx`);
    },
  };
}
