import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from './logger';

/**
 * Every Prometheus metric Tracker exports, in one place so the alert rules
 * (deploy/prometheus/alerts.yaml) and the operations guide name the same series.
 * A service registers only what it uses; all carry the `service` label.
 */
export interface Metrics {
  registry: Registry;
  http: { requests: Counter<'method' | 'route' | 'status'>; duration: Histogram<'method' | 'route' | 'status'> };
  /** Outbox relay (access, issues). */
  outbox: { published: Counter; failures: Counter };
  /** Event consumer (statistics). */
  consumer: { deliveries: Counter<'queue' | 'outcome'>; redeliveries: Counter<'queue'>; deadLetters: Counter<'queue' | 'reason'> };
  /** Agent tool calls (agent), by tool and the status of the REST answer they relayed. */
  agent: { toolCalls: Counter<'tool' | 'status'> };
  /** Registers a gauge read at scrape time; a probe that fails leaves the series out of that scrape. */
  gauge: (name: string, help: string, read: () => Promise<Array<{ labels?: Record<string, string>; value: number }>>, labelNames?: string[]) => void;
}

export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const registers = [registry];
  return {
    registry,
    http: {
      requests: new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template and status.', labelNames: ['method', 'route', 'status'], registers }),
      duration: new Histogram({
        name: 'http_request_duration_seconds',
        help: 'Time from receiving a request to the end of its answer.',
        labelNames: ['method', 'route', 'status'],
        buckets: HTTP_BUCKETS,
        registers,
      }),
    },
    outbox: {
      published: new Counter({ name: 'tracker_outbox_published_total', help: 'Outbox events the broker confirmed.', registers }),
      failures: new Counter({ name: 'tracker_outbox_publish_failures_total', help: 'Outbox events the broker did not confirm (retried).', registers }),
    },
    consumer: {
      deliveries: new Counter({
        name: 'tracker_consumer_deliveries_total',
        help: 'Event deliveries handled, by outcome (acked, retried, dead_lettered).',
        labelNames: ['queue', 'outcome'],
        registers,
      }),
      redeliveries: new Counter({
        name: 'tracker_consumer_redeliveries_total',
        help: 'Deliveries seen before: redelivered by the broker or back from the retry queue.',
        labelNames: ['queue'],
        registers,
      }),
      deadLetters: new Counter({
        name: 'tracker_consumer_dead_letters_total',
        help: 'Events sent to the dead-letter queue, by reason (poison, handler_failed).',
        labelNames: ['queue', 'reason'],
        registers,
      }),
    },
    agent: {
      toolCalls: new Counter({
        name: 'tracker_agent_tool_calls_total',
        help: 'Agent tool calls, by tool and the HTTP status of the answer they relayed (422 for refused arguments).',
        labelNames: ['tool', 'status'],
        registers,
      }),
    },
    gauge: (name, help, read, labelNames = []) => {
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          this.reset();
          try {
            for (const sample of await read()) {
              if (sample.labels) this.set(sample.labels, sample.value);
              else this.set(sample.value);
            }
          } catch {
            // Unknown now (database or broker away): no sample rather than a stale or made-up one.
          }
        },
      });
    },
  };
}

const NOT_MEASURED = new Set(['/healthz', '/readyz']);

/**
 * Counts and times every answered request. The route label is the matched route's
 * template (`/api/v1/issues/:key`), or what the app put in res.locals.route (the
 * gateway), else `unmatched`: raw paths would give each id its own series.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (NOT_MEASURED.has(req.path)) return next();
    const stop = metrics.http.duration.startTimer();
    res.on('finish', () => {
      const route = (res.locals.route as string | undefined) ?? routeTemplate(req) ?? 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.http.requests.inc(labels);
      stop(labels);
    });
    next();
  };
}

function routeTemplate(req: Request): string | null {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : null;
}

export interface MetricsServer {
  port: number;
  close: () => Promise<void>;
}

/**
 * `/metrics` on its own listener (METRICS_PORT), so the public port never serves it and
 * a NetworkPolicy can open it to Prometheus alone. Also adds the process metrics.
 */
export async function serveMetrics(metrics: Metrics, options: { port: number; host: string; logger: Logger }): Promise<MetricsServer> {
  collectDefaultMetrics({ register: metrics.registry });
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => {
        options.logger.warn({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  options.logger.info({ port }, 'metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The outbox relay's metrics: confirmed and failed publishes (pass the result as the
 * relay's onBatch) and the backlog, read from the outbox table at scrape time.
 */
export function outboxMetrics(metrics: Metrics) {
  return {
    onBatch: (result: { published: number; failed: number }) => {
      metrics.outbox.published.inc(result.published);
      metrics.outbox.failures.inc(result.failed);
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
  return {
    onOutcome: (d: { queue: string; outcome: string; reason?: string; redelivered: boolean }) => {
      metrics.consumer.deliveries.inc({ queue: d.queue, outcome: d.outcome });
      if (d.redelivered) metrics.consumer.redeliveries.inc({ queue: d.queue });
      if (d.outcome === 'dead_lettered') metrics.consumer.deadLetters.inc({ queue: d.queue, reason: d.reason ?? 'unknown' });
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
