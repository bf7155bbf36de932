import express from 'express';
import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';
import { serveService, type ServiceLifecycle } from '../src/server';

const logger = createLogger('test', 'silent');

describe('serveService', () => {
  test('listens with the service config, and on shutdown flags the lifecycle first, then closes in order', async () => {
    const events: string[] = [];
    let lifecycle: ServiceLifecycle | undefined;
    const app = express();
    app.get('/ready', (_req, res) => {
      res.status(lifecycle?.isShuttingDown() ? 503 : 200).end();
    });
    const running = await serveService((given) => {
      lifecycle = given;
      return {
        service: { app, logger, metrics: createMetrics('test') },
        config: { http: { port: 0, host: '127.0.0.1', shutdownGraceMs: 200 }, metrics: { port: 0 } },
        onShutdownStart: () => events.push(`shutdown started, shutting down: ${given.isShuttingDown()}`),
        closers: [
          async () => events.push('first closer'),
          async () => events.push('second closer'),
        ],
      };
    });
    expect(lifecycle?.isShuttingDown()).toBe(false);
    expect((await fetch(`http://127.0.0.1:${running.port}/ready`)).status).toBe(200);
    expect(running.metricsPort).toEqual(expect.any(Number));
    expect((await fetch(`http://127.0.0.1:${running.metricsPort}/metrics`)).status).toBe(200);

    await running.shutdown();
    expect(lifecycle?.isShuttingDown()).toBe(true);
    expect(events).toEqual(['shutdown started, shutting down: true', 'first closer', 'second closer']);
  });

  test('a service that fails to build is not served', async () => {
    await expect(
      serveService(() => {
        throw new Error('no database');
      }),
    ).rejects.toThrow('no database');
  });
});
