import { relayServiceOutbox } from '@tracker/events';
import { keepIdempotentRequestsSwept, runService } from '@tracker/kit';
import { createIssuesService } from './app';
import { loadIssuesConfig } from './config';

void runService('issues', (lifecycle) => {
  const config = loadIssuesConfig();
  const service = createIssuesService(config, lifecycle);
  const relay = relayServiceOutbox(config, service);
  const sweep = keepIdempotentRequestsSwept(service.pool, service.logger);
  return { service, config, closers: [relay.stop, sweep.stop, service.close] };
});
