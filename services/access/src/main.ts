import { relayServiceOutbox } from '@tracker/events';
import { runService } from '@tracker/kit';
import { createAccessService } from './app';
import { loadAccessConfig } from './config';

const FRESHNESS_INTERVAL_MS = 1000;

void runService('access', (lifecycle) => {
  const config = loadAccessConfig();
  const service = createAccessService(config, lifecycle);
  const keepFresh = () =>
    service.cache.keepFresh().catch((err) => service.logger.warn({ err: err.message }, 'cache debts not settled'));
  const settle = setInterval(keepFresh, FRESHNESS_INTERVAL_MS);
  settle.unref();
  // Right after a reconnect: delete what failed meanwhile, so readers trust the cache again soon.
  service.redis.on('ready', keepFresh);
  const relay = relayServiceOutbox(config, service);
  return { service, config, onShutdownStart: () => clearInterval(settle), closers: [relay.stop, service.close] };
});
