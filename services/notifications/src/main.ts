import { runService } from '@tracker/kit';
import { createNotificationsService } from './app';
import { loadNotificationsConfig } from './config';

/**
 * The notifications service: the event consumer keeping the public event log (and queueing
 * each event's webhook deliveries), the delivery worker, the pruning of events and
 * deliveries past their retention, and the HTTP API (the feed, its live stream and the
 * webhooks). On SIGTERM: stop taking requests and drain them, stop the consumer (it waits
 * for the handlers in flight), the worker (it waits for the attempts in flight, at most the
 * webhook timeout) and the pruning, then close Redis and the database. Live streams never
 * end by themselves, so they are ended as shutdown begins (their clients reconnect to
 * another replica).
 */
void runService('notifications', (lifecycle) => {
  const config = loadNotificationsConfig();
  const service = createNotificationsService(config, lifecycle);
  const consumers = service.startConsumers();
  const pruning = service.keepPruned();
  const delivering = service.startDelivering();
  return {
    service,
    config,
    onShutdownStart: service.endStreams,
    closers: [() => Promise.all([consumers.stop(), pruning.stop(), delivering.stop()]), service.close],
  };
});
