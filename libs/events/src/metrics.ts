import { Counter } from 'prom-client';
import type { Metrics } from '@tracker/kit';

/**
 * The outbox relay's metrics: confirmed and failed publishes (pass the result as the
 * relay's onBatch) and the backlog, read from the outbox table at scrape time.
 * Registered on the service's registry, so they carry its `service` label.
 */
export function outboxMetrics(metrics: Metrics) {
  const registers = [metrics.registry];
  const published = new Counter({ name: 'tracker_outbox_published_total', help: 'Outbox events the broker confirmed.', registers });
  const failures = new Counter({ name: 'tracker_outbox_publish_failures_total', help: 'Outbox events the broker did not confirm (retried).', registers });
  return {
    onBatch: (result: { published: number; failed: number }) => {
      published.inc(result.published);
      failures.inc(result.failed);
    },
    watch: (backlog: () => Promise<{ count: number; oldestAgeSeconds: number }>) => {
      const read = async () => {
        const now = await backlog();
        return { count: [{ value: now.count }], age: [{ value: now.oldestAgeSeconds }] };
      };
      metrics.gauge('tracker_outbox_backlog_events', 'Outbox events not yet confirmed by the broker.', async () => (await read()).count);
      metrics.gauge('tracker_outbox_oldest_age_seconds', 'Age of the oldest unpublished outbox event (0 when none).', async () => (await read()).age);
    },
  };
}

/** The consumer's metrics: pass the result as its onOutcome; depth is read from the broker at scrape time. */
export function consumerMetrics(metrics: Metrics) {
  const registers = [metrics.registry];
  const deliveries = new Counter({
    name: 'tracker_consumer_deliveries_total',
    help: 'Event deliveries handled, by outcome (acked, retried, dead_lettered).',
    labelNames: ['queue', 'outcome'],
    registers,
  });
  const redeliveries = new Counter({
    name: 'tracker_consumer_redeliveries_total',
    help: 'Deliveries seen before: redelivered by the broker or back from the retry queue.',
    labelNames: ['queue'],
    registers,
  });
  const deadLetters = new Counter({
    name: 'tracker_consumer_dead_letters_total',
    help: 'Events sent to the dead-letter queue, by reason (poison, handler_failed).',
    labelNames: ['queue', 'reason'],
    registers,
  });
  return {
    onOutcome: (d: { queue: string; outcome: string; reason?: string; redelivered: boolean }) => {
      deliveries.inc({ queue: d.queue, outcome: d.outcome });
      if (d.redelivered) redeliveries.inc({ queue: d.queue });
      if (d.outcome === 'dead_lettered') deadLetters.inc({ queue: d.queue, reason: d.reason ?? 'unknown' });
    },
    watch: (consumers: Array<{ queue: string; depth: () => Promise<{ waiting: number; dead: number }> }>) => {
      const depths = () => Promise.all(consumers.map(async (c) => ({ queue: c.queue, ...(await c.depth()) })));
      metrics.gauge(
        'tracker_consumer_lag_messages',
        'Events waiting in the consumer queue (published, not yet delivered).',
        async () => (await depths()).map((d) => ({ labels: { queue: d.queue }, value: d.waiting })),
        ['queue'],
      );
      metrics.gauge(
        'tracker_consumer_dead_letter_messages',
        'Events in the dead-letter queue, waiting for an operator (bounded at 10,000: the oldest are dropped past it).',
        async () => (await depths()).map((d) => ({ labels: { queue: d.queue }, value: d.dead })),
        ['queue'],
      );
    },
  };
}

/** A service's consumer metrics, made once when the service is built (consumerMetrics). */
export type ConsumerMetrics = ReturnType<typeof consumerMetrics>;
