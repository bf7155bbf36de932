import { keepIdempotentRequestsSwept, serve } from '@tracker/kit';
import { createStatisticsService } from './app';
import { loadStatisticsConfig } from './config';

/**
 * The statistics service: the event consumer keeping the replica current, a rebuild
 * from the issues snapshot while the replica is not built, and the HTTP API. On
 * SIGTERM: stop taking requests and drain them, stop the consumer (it waits for the
 * handlers in flight) and the rebuild, then close Redis and the database.
 */
async function main() {
  const config = loadStatisticsConfig();
  let shuttingDown = false;
  const service = createStatisticsService(config, { isShuttingDown: () => shuttingDown });
  const consumers = service.startConsumers();
  const builder = service.keepReplicaBuilt();
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
    closers: [() => Promise.all([consumers.stop(), builder.stop()]), sweep.stop, service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`statistics failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
