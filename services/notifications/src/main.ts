import { runService } from '@tracker/kit';
import { createNotificationsService } from './app';
import { loadNotificationsConfig } from './config';

/**
 * The notifications service: the event consumer keeping the public event log, the pruning
 * of events past their retention, and the HTTP API (the feed). On SIGTERM: stop taking
 * requests and drain them, stop the consumer (it waits for the handlers in flight) and the
 * pruning, then close Redis and the database. Live streams never end by themselves, so they
 * are ended as shutdown begins (their clients reconnect to another replica).
 */
void runService('notifications', (lifecycle) => {
  const config = loadNotificationsConfig();
  const service = createNotificationsService(config, lifecycle);
  const consumers = service.startConsumers();
  const pruning = service.keepPruned();
  return { service, config, onShutdownStart: service.endStreams, closers: [() => Promise.all([consumers.stop(), pruning.stop()]), service.close] };
});
