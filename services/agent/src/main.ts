import { serve } from '@tracker/kit';
import { createAgentService } from './app';
import { loadAgentConfig } from './config';

async function main() {
  const config = loadAgentConfig();
  let shuttingDown = false;
  const service = createAgentService(config, { isShuttingDown: () => shuttingDown });
  await serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    metrics: service.metrics,
    metricsPort: config.metrics.port,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => (shuttingDown = true),
    closers: [service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`agent failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
