import { keepIdempotentRequestsSwept, runService } from '@tracker/kit';
import { createStatisticsService } from './app';
import { loadStatisticsConfig } from './config';

/**
 * The statistics service: the event consumer keeping the replica current, a rebuild
 * from the issues snapshot while the replica is not built, and the HTTP API. On
 * SIGTERM: stop taking requests and drain them, stop the consumer (it waits for the
 * handlers in flight) and the rebuild, then close Redis and the database.
 */
void runService('statistics', (lifecycle) => {
  const config = loadStatisticsConfig();
  const service = createStatisticsService(config, lifecycle);
  const consumers = service.startConsumers();
  const builder = service.keepReplicaBuilt();
  const sweep = keepIdempotentRequestsSwept(service.pool, service.logger);
  return { service, config, closers: [() => Promise.all([consumers.stop(), builder.stop()]), sweep.stop, service.close] };
});
