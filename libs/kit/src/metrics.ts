import http from 'node:http';
import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from './logger';

/**
 * A service's Prometheus registry and the metrics every service shares; all carry the
 * `service` label. The event metrics (outbox relay, consumer) are registered on it by
 * libs/events (`outboxMetrics`, `consumerMetrics`), a service's own gauges through `gauge`.
 */
export interface Metrics {
  registry: Registry;
  http: { requests: Counter<'method' | 'route' | 'status'>; duration: Histogram<'method' | 'route' | 'status'> };
  /** Agent tool calls (agent), by tool and the status of the REST answer they relayed. */
  agent: { toolCalls: Counter<'tool' | 'status'> };
  /** Registers a gauge read at scrape time; a probe that fails leaves the series out of that scrape. */
  gauge: (name: string, help: string, read: () => Promise<Array<{ labels?: Record<string, string>; value: number }>>, labelNames?: string[]) => void;
  /** Registers a service's own counter; its labels must take a fixed set of values. */
  counter: <L extends string>(name: string, help: string, labelNames: readonly L[]) => Counter<L>;
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
    agent: {
      toolCalls: new Counter({
        name: 'tracker_agent_tool_calls_total',
        help: 'Agent tool calls, by tool and the HTTP status of the answer they relayed (422 for refused arguments).',
        labelNames: ['tool', 'status'],
        registers,
      }),
    },
    counter: (name, help, labelNames) => new Counter({ name, help, labelNames: [...labelNames], registers }),
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

/**
 * Counts and times an answered request (createBaseApp calls it when the answer is
 * finished; /healthz and /readyz are not measured). The route label is the matched
 * route's template (`/api/v1/issues/:key`), or what the app put in res.locals.route (the
 * gateway), else `unmatched`: raw paths would give each id its own series.
 */
/** Counts an answer and observes its duration (none for a stream: its length is not a latency). */
export function observeHttp(metrics: Metrics, req: Request, res: Response, seconds: number | null): void {
  const route = (res.locals.route as string | undefined) ?? routeTemplate(req) ?? 'unmatched';
  const labels = { method: req.method, route, status: String(res.statusCode) };
  metrics.http.requests.inc(labels);
  if (seconds !== null) metrics.http.duration.observe(labels, seconds);
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
