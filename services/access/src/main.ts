import { serve } from '@tracker/kit';
import { createAccessService } from './app';
import { loadAccessConfig } from './config';

const DEBT_RETRY_MS = 1000;

async function main() {
  const config = loadAccessConfig();
  let shuttingDown = false;
  const service = createAccessService(config, { isShuttingDown: () => shuttingDown });
  const settle = setInterval(() => {
    service.deps.cache.settleDebts().catch((err) => service.logger.warn({ err: err.message }, 'auth cache debts not settled'));
  }, DEBT_RETRY_MS);
  settle.unref();
  await serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    graceMs: config.http.shutdownGraceMs,
    handleSignals: true,
    onShutdownStart: () => {
      shuttingDown = true;
      clearInterval(settle);
    },
    closers: [service.close],
  });
}

main().catch((err) => {
  process.stderr.write(`access failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
