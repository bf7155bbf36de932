import { serve } from '@tracker/kit';
import { createStatisticsService } from './app';
import { loadStatisticsConfig } from './config';

async function main() {
  const config = loadStatisticsConfig();
  let shuttingDown = false;
  const service = createStatisticsService(config, { isShuttingDown: () => shuttingDown });
  await serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => (shuttingDown = true),
    closers: [service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`statistics failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
