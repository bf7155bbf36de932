import http from 'node:http';
import express from 'express';
import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';
import { serve, serveService, type ServiceLifecycle } from '../src/server';

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

  test('when the config bounds connections, then the server holds no more open: the next one is closed at once', async () => {
    const app = express();
    app.get('/ok', (_req, res) => {
      res.end('ok');
    });
    const running = await serveService(() => ({
      service: { app, logger, metrics: createMetrics('test') },
      config: { http: { port: 0, host: '127.0.0.1', shutdownGraceMs: 100, maxConnections: 2 }, metrics: {} },
      closers: [],
    }));
    expect(running.server.maxConnections).toBe(2);
    const net = await import('node:net');
    const open = await Promise.all([0, 1].map(() => new Promise<import('node:net').Socket>((resolve) => {
      const socket = net.connect(running.port, '127.0.0.1', () => resolve(socket));
    })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = net.connect(running.port, '127.0.0.1');
    const closed = await new Promise<boolean>((resolve) => {
      third.on('close', () => resolve(true));
      third.on('error', () => undefined);
      setTimeout(() => resolve(false), 2000);
    });
    expect(closed).toBe(true);
    for (const socket of open) socket.destroy();
    await running.shutdown();
  });

  test('a service that fails to build is not served', async () => {
    await expect(
      serveService(() => {
        throw new Error('no database');
      }),
    ).rejects.toThrow('no database');
  });
});

describe('serve', () => {
  /**
   * Express would otherwise re-prototype every request and response (Object.setPrototypeOf),
   * which made the services' requests twice as costly: the server creates them with the
   * app's prototypes instead, and express's helpers work as before.
   */
  test('the requests and responses a route sees were created with the app\'s own prototypes, and express\'s helpers work on them', async () => {
    const app = express();
    app.set('query parser', 'simple');
    const seen: Array<{ requestBorn: boolean; responseBorn: boolean }> = [];
    app.get('/items/:id', (req, res) => {
      // Created by a class of the server's, not Node's own, and holding the app's prototype.
      seen.push({
        requestBorn: Object.getPrototypeOf(req) === app.request && req.constructor !== http.IncomingMessage && req instanceof http.IncomingMessage,
        responseBorn: Object.getPrototypeOf(res) === app.response && res.constructor !== http.ServerResponse && res instanceof http.ServerResponse,
      });
      res.locals.seen = true;
      res.status(201).set('X-Item', req.params.id).json({ id: req.params.id, q: req.query.q, header: req.get('x-given'), path: req.path, app: req.app === app });
    });
    const running = await serve(app, { port: 0, host: '127.0.0.1', logger, graceMs: 200 });
    try {
      for (const id of ['a', 'b']) {
        const response = await fetch(`http://127.0.0.1:${running.port}/items/${id}?q=1`, { headers: { 'x-given': 'yes' } });
        expect([response.status, response.headers.get('x-item'), await response.json()]).toEqual([201, id, { id, q: '1', header: 'yes', path: `/items/${id}`, app: true }]);
      }
      expect(seen).toEqual([
        { requestBorn: true, responseBorn: true },
        { requestBorn: true, responseBorn: true },
      ]);
    } finally {
      await running.shutdown();
    }
  });
});
