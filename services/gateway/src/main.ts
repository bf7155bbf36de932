import { runService } from '@tracker/kit';
import { createGatewayService } from './app';
import { loadGatewayConfig } from './config';

void runService('gateway', (lifecycle) => {
  const config = loadGatewayConfig();
  const service = createGatewayService(config, lifecycle);
  return { service, config, onShutdownStart: service.endStreams, closers: [service.close] };
});
