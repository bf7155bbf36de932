import { serve } from '@tracker/kit';
import { createGatewayService } from './app';
import { loadGatewayConfig } from './config';

async function main() {
  const config = loadGatewayConfig();
  let shuttingDown = false;
  const gateway = createGatewayService(config, { isShuttingDown: () => shuttingDown });
  await serve(gateway.app, {
    port: config.http.port,
    host: config.http.host,
    logger: gateway.logger,
    metrics: gateway.metrics,
    metricsPort: config.metrics.port,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => (shuttingDown = true),
    closers: [gateway.close],
  });
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
