import { runService } from '@tracker/kit';
import { createAgentService } from './app';
import { loadAgentConfig } from './config';

void runService('agent', (lifecycle) => {
  const config = loadAgentConfig();
  const service = createAgentService(config, lifecycle);
  return { service, config, closers: [service.close] };
});
