import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Histogram } from 'prom-client';
import type { Pool } from 'pg';
import { accessClient, aclReader, createRedis, redisSeenTickets } from '@tracker/authz';
import { PUBLIC_EVENT_TYPES } from '@tracker/contracts';
import { consumerMetrics } from '@tracker/events';
import { closeConnections, createLogger, createMetrics, createPool, createServiceApp, databaseReadiness, internalClient, type Logger, type Metrics } from '@tracker/kit';
import type { NotificationsConfig } from './config';
import { startConsumers } from './consumers';
import type { OnRecorded } from './consumers/public-events.consumer';
import { createStore } from './data-access/store';
import { createWebhookSender } from './data-access/webhook-sender';
import type { NotificationsDeps } from './domain/deps';
import { logWatcher } from './domain/log-watcher';
import { keepEventsPruned } from './domain/prune-events.use-case';
import { openSecret, sealSecret } from './domain/secret-box';
import { newWebhookSecret, webhookHeaders } from './domain/webhook-signature.rules';
import { startDeliveryWorker } from './jobs/deliver-webhooks';
import { streamSlots } from './domain/stream-slots';
import { eventsStreamRoutes } from './routes/events-stream.route';
import { eventsRoutes } from './routes/events.route';
import { webhooksRoutes } from './routes/webhooks.route';

export interface NotificationsService {
  app: ReturnType<typeof createServiceApp>;
  deps: NotificationsDeps;
  pool: Pool;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  /** The event consumer (src/consumers/index.ts); main starts it, tests may too. */
  startConsumers: () => ReturnType<typeof startConsumers>;
  /** Deletes the events and deliveries past their retention every EVENT_PRUNE_INTERVAL_MS (main). */
  keepPruned: () => ReturnType<typeof keepEventsPruned>;
  /** The webhook delivery worker (src/jobs/deliver-webhooks.ts); main starts it, tests may too. */
  startDelivering: () => ReturnType<typeof startDeliveryWorker>;
  /** Ends every live stream and refuses new ones (shutdown begins: streams never drain by themselves). */
  endStreams: () => void;
  close: () => Promise<void>;
}

/** How long events take from their change to the log: seconds, from sub-second to a backlog of hours. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600];

export function createNotificationsService(
  config: NotificationsConfig,
  options: { isShuttingDown?: () => boolean; logger?: Logger; clock?: () => Date } = {},
): NotificationsService {
  const logger = options.logger ?? createLogger('notifications', config.log.level);
  const pool = createPool(config.database, logger);
  const redis = createRedis(config.redis.url, logger);
  const access = accessClient(internalClient({ baseUrl: config.access.url, audience: 'access', keys: config.internal, timeoutMs: config.access.timeoutMs }));
  const clock = options.clock ?? (() => new Date());
  const sender = createWebhookSender({ allowed: config.webhooks.allowed, timeoutMs: config.webhooks.timeoutMs });
  const store = createStore(pool);
  const deps: NotificationsDeps = {
    log: store.events,
    grants: aclReader(redis, access, logger, config.internal.trusted),
    clock,
    retention: { hours: config.retention.hours },
    feed: { scanMax: config.feed.scanMax },
    webhooks: store.webhooks,
    deliveries: store.deliveries,
    targets: sender,
    secrets: {
      generate: newWebhookSecret,
      seal: (secret) => sealSecret(config.webhooks.secretsKey, secret),
      open: (sealed) => openSecret(config.webhooks.secretsKey, sealed),
    },
    newId: randomUUID,
    stream: { maxSeconds: config.stream.maxSeconds, keepAliveMs: config.stream.keepAliveMs, maxOpen: config.stream.maxOpen, perUser: config.stream.perUser },
    watcher: logWatcher(store.events, logger, { intervalMs: config.stream.pollMs }),
    streams: streamSlots({ maxOpen: config.stream.maxOpen, perUser: config.stream.perUser }),
  };
  const metrics = createMetrics('notifications');
  const app = createServiceApp({
    name: 'notifications',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    isShuttingDown: options.isShuttingDown,
    // The broker, Redis and the access service are not checked: the consumer reconnects by
    // itself, and without Redis rights come from the access service (slower, as correct).
    readiness: databaseReadiness(pool),
    routes: (router) => {
      eventsRoutes(router, deps);
      webhooksRoutes(router, deps);
      eventsStreamRoutes(router, deps);
    },
  });

  const registers = [metrics.registry];
  const ingested = metrics.counter('tracker_notifications_events_ingested_total', 'Public events recorded in the log, by type.', ['type']);
  const skipped = metrics.counter(
    'tracker_notifications_events_skipped_total',
    'Events not recorded, by reason: duplicate (recorded before), expired (older than the log keeps), incomplete (from a publisher too old).',
    ['reason'],
  );
  const lag = new Histogram({
    name: 'tracker_notifications_ingest_lag_seconds',
    help: 'From an event\'s timestamp (its change) to its recording in the log.',
    buckets: LAG_BUCKETS,
    registers,
  });
  // Known types start at 0, so a rate over them is defined before the first event of each.
  for (const type of PUBLIC_EVENT_TYPES) ingested.inc({ type }, 0);
  /** The delivery workers started here (startDelivering), woken as events are recorded: their deliveries are due at once. */
  const workers = new Set<ReturnType<typeof startDeliveryWorker>>();
  const onRecorded: OnRecorded = ({ type, occurredAt, outcome }) => {
    if (outcome !== 'recorded') return void skipped.inc({ reason: outcome });
    ingested.inc({ type });
    // This replica's streams and delivery workers need not wait for their next look (other replicas' still do).
    deps.watcher.wake();
    for (const worker of workers) worker.wake();
    lag.observe(Math.max(0, (clock().getTime() - Date.parse(occurredAt)) / 1000));
  };
  metrics.gauge('tracker_notifications_oldest_event_age_seconds', 'Age of the oldest event kept (about the retention once it is full; more means pruning is failing).', async () => {
    const oldest = await deps.log.oldestRecordedAt();
    return oldest ? [{ value: Math.max(0, (clock().getTime() - oldest.getTime()) / 1000) }] : [];
  });
  // Made with the service, so /metrics shows them before the consumer starts.
  const events = consumerMetrics(metrics);
  metrics.gauge('tracker_notifications_event_streams_open', 'Live event streams (GET /api/v1/events/stream) open on this replica.', async () => [{ value: deps.streams.open() }]);

  const attempts = metrics.counter(
    'tracker_notifications_webhook_attempts_total',
    'Webhook delivery attempts, by outcome: succeeded (2xx), retrying (failed, another attempt is due), failed (no attempt left: 410, the schedule ran out, a ping or manual retry failed).',
    ['outcome'],
  );
  for (const outcome of ['succeeded', 'retrying', 'failed']) attempts.inc({ outcome }, 0);
  const disabled = metrics.counter('tracker_notifications_webhooks_disabled_total', 'Webhooks switched off by their deliveries: the endpoint answered 410, or a delivery failed every retry.', []);
  const attemptSeconds = new Histogram({
    name: 'tracker_notifications_webhook_attempt_seconds',
    help: 'How long a delivery attempt took, from the connection to the end of the answer (at most the timeout).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  // Both gauges are collected in one scrape: they share one read of the backlog.
  const backlog = sharedForAWhile(BACKLOG_READ_SHARED_MS, () => deps.deliveries.backlog());
  metrics.gauge('tracker_notifications_webhook_deliveries_due', 'Deliveries due and not being attempted: a backlog that grows means the workers fall behind.', async () => [
    { value: (await backlog()).due },
  ]);
  metrics.gauge('tracker_notifications_webhook_delivery_lag_seconds', 'How long the oldest delivery due has waited past its time (0 when none waits).', async () => [
    { value: (await backlog()).oldestDueSeconds },
  ]);

  const endStreams = () => deps.streams.endAll();
  const close = async () => {
    endStreams();
    deps.watcher.stop();
    await closeConnections(redis, pool);
  };
  return {
    app,
    deps,
    pool,
    redis,
    logger,
    metrics,
    startConsumers: () => startConsumers({ log: deps.log, clock, retention: deps.retention, logger, onRecorded }, config, events),
    keepPruned: () => keepEventsPruned(deps, logger, { intervalMs: config.retention.pruneIntervalMs }),
    startDelivering: () => {
      const worker = startDeliveryWorker(
        {
          deliveries: deps.deliveries,
          secrets: deps.secrets,
          sender,
          sign: webhookHeaders,
          clock,
          random: Math.random,
          logger,
          onAttempt: ({ status, disable, durationMs }) => {
            attempts.inc({ outcome: status === 'pending' ? 'retrying' : status });
            attemptSeconds.observe(durationMs / 1000);
            if (disable) disabled.inc();
          },
        },
        // A claim outlasts the longest attempt, so no other worker sends it meanwhile.
        { ...config.delivery, leaseMs: config.webhooks.timeoutMs + 20_000 },
      );
      workers.add(worker);
      return {
        wake: worker.wake,
        stop: () => {
          workers.delete(worker);
          return worker.stop();
        },
      };
    },
    endStreams,
    close,
  };
}

/** How long one read of the deliveries' backlog serves the gauges: longer than a scrape, shorter than any scrape interval. */
const BACKLOG_READ_SHARED_MS = 1000;

/** `read`, whose pending (or just settled) answer is given to every call within `ms` of the call that started it. */
function sharedForAWhile<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { answer: Promise<T>; at: number } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= ms) last = { answer: read(), at: now };
    return last.answer;
  };
}
