import { relayServiceOutbox } from '@tracker/events';
import { runService } from '@tracker/kit';
import { createAccessService } from './app';
import { loadAccessConfig } from './config';
import { pruneSignIns } from './domain/prune-sign-ins.use-case';

const FRESHNESS_INTERVAL_MS = 1000;
const PRUNE_INTERVAL_MS = 3_600_000;

void runService('access', (lifecycle) => {
  const config = loadAccessConfig();
  const service = createAccessService(config, lifecycle);
  const keepFresh = () =>
    service.cache.keepFresh().catch((err) => service.logger.warn({ err: err.message }, 'cache debts not settled'));
  const settle = setInterval(keepFresh, FRESHNESS_INTERVAL_MS);
  settle.unref();
  // Right after a reconnect: delete what failed meanwhile, so readers trust the cache again soon.
  service.redis.on('ready', keepFresh);
  const prune = setInterval(() => {
    pruneSignIns(service.deps).catch((err) => service.logger.warn({ err: err.message }, 'ended sessions not pruned'));
  }, PRUNE_INTERVAL_MS);
  prune.unref();
  const relay = relayServiceOutbox(config, service);
  const stopTimers = () => [settle, prune].forEach(clearInterval);
  return { service, config, onShutdownStart: stopTimers, closers: [relay.stop, service.close] };
});
