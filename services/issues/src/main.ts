import { startServiceRelay } from '@tracker/events';
import { keepIdempotentRequestsSwept, outboxMetrics, serve } from '@tracker/kit';
import { createIssuesService } from './app';
import { loadIssuesConfig } from './config';

async function main() {
  const config = loadIssuesConfig();
  let shuttingDown = false;
  const service = createIssuesService(config, { isShuttingDown: () => shuttingDown });
  // Publishes this service's outbox to RabbitMQ; several replicas may run it at once.
  const outbox = outboxMetrics(service.metrics);
  const relay = startServiceRelay({
    databaseUrl: config.database.url,
    schema: config.database.schema,
    ...config.outbox,
    // Every event leaves signed with this service's key; consumers accept its event types only under it.
    key: config.internal.key,
    logger: service.logger,
    onBatch: outbox.onBatch,
  });
  outbox.watch(relay.backlog);
  const sweep = keepIdempotentRequestsSwept(service.pool, service.logger);
  await serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    metrics: service.metrics,
    metricsPort: config.metrics.port,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => (shuttingDown = true),
    closers: [relay.stop, sweep.stop, service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`issues failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
