import { startServiceRelay } from '@tracker/events';
import { outboxMetrics, serve } from '@tracker/kit';
import { createAccessService } from './app';
import { loadAccessConfig } from './config';

const FRESHNESS_INTERVAL_MS = 1000;

async function main() {
  const config = loadAccessConfig();
  let shuttingDown = false;
  const service = createAccessService(config, { isShuttingDown: () => shuttingDown });
  const keepFresh = () =>
    service.deps.cache.keepFresh().catch((err) => service.logger.warn({ err: err.message }, 'cache debts not settled'));
  const settle = setInterval(keepFresh, FRESHNESS_INTERVAL_MS);
  settle.unref();
  // Right after a reconnect: delete what failed meanwhile, so readers trust the cache again soon.
  service.redis.on('ready', keepFresh);
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
  await serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    metrics: service.metrics,
    metricsPort: config.metrics.port,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => {
      shuttingDown = true;
      clearInterval(settle);
    },
    closers: [relay.stop, service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`access failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
