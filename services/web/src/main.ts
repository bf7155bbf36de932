import { runService } from '@tracker/kit';
import { createWebService } from './app';
import { loadWebConfig } from './config';

void runService('web', (lifecycle) => {
  const config = loadWebConfig();
  const service = createWebService(config, lifecycle);
  return { service, config, closers: [service.close] };
});
