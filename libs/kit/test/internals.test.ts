import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { Pool } from 'pg';
import request from 'supertest';
import { bornWithPrototypesOf, CHECKED_AGAINST, inProgressResponse, registeredRoutes, replaceAppJson, sentTogether } from '../src/internals';

/** The version of a package as installed where the kit resolves it (router: where express resolves it). */
const installed = (name: string, from = __dirname) => {
  const manifest = require.resolve(`${name}/package.json`, { paths: [from] });
  return (require(manifest) as { version: string }).version;
};

describe('the library versions the internals were checked against', () => {
  test.each([
    ['express', () => installed('express')],
    ['router', () => installed('router', path.dirname(require.resolve('express')))],
    ['pg', () => installed('pg')],
  ] as const)('%s is the pinned version (else re-check libs/kit/src/internals.ts against it and update CHECKED_AGAINST)', (name, version) => {
    expect(version()).toBe(CHECKED_AGAINST[name]);
  });
});

/** Serves `listener` on an ephemeral port for one `work`. */
async function serving(server: http.Server, work: (port: number) => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await work((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const get = (port: number, pathname: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: pathname }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });

describe('bornWithPrototypesOf', () => {
  test('the server creates requests and responses with the app\'s prototypes already, which express keeps, and express\'s own methods still work on them', async () => {
    const app = express();
    const seen: Record<string, boolean> = {};
    app.get('/p', (req, res) => {
      seen.requestKept = Object.getPrototypeOf(req) === app.request;
      seen.responseKept = Object.getPrototypeOf(res) === app.response;
      res.status(201).json({ query: req.query.q, host: req.get('host') !== undefined });
    });
    const server = http.createServer(bornWithPrototypesOf(app));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      // Before express: born with them.
      seen.requestBorn = Object.getPrototypeOf(req) === app.request;
      seen.responseBorn = Object.getPrototypeOf(res) === app.response;
    });
    server.on('request', app);
    await serving(server, async (port) => {
      expect(await get(port, '/p?q=x')).toEqual({ status: 201, body: JSON.stringify({ query: 'x', host: true }) });
    });
    expect(seen).toEqual({ requestBorn: true, responseBorn: true, requestKept: true, responseKept: true });
  });
});

describe('replaceAppJson', () => {
  test('res.json is replaced for that app alone: another app of the process keeps express\'s', async () => {
    const replaced = express();
    const plain = express();
    for (const app of [replaced, plain]) app.get('/j', (_req, res) => res.json({ a: 1 }));
    replaceAppJson(replaced, function json(this: express.Response, body?: unknown) {
      this.setHeader('Content-Type', 'application/json');
      return this.send(Buffer.from(JSON.stringify(body)));
    });
    const mine = await request(replaced).get('/j');
    const theirs = await request(plain).get('/j');
    expect([mine.headers['content-type'], mine.text]).toEqual(['application/json', '{"a":1}']);
    expect([theirs.headers['content-type'], theirs.text]).toEqual(['application/json; charset=utf-8', '{"a":1}']);
  });
});

describe('inProgressResponse', () => {
  test('is the response being written on a socket while a request is answered, and none once it is', async () => {
    let during: unknown = 'unset';
    let sockets: import('node:net').Socket | undefined;
    const server = http.createServer((req, res) => {
      sockets = req.socket;
      during = inProgressResponse(req.socket) === res;
      res.end('ok');
    });
    await serving(server, async (port) => {
      expect((await get(port, '/')).body).toBe('ok');
      expect(during).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(inProgressResponse(sockets!)).toBeUndefined();
    });
  });
});

describe('sentTogether', () => {
  const url = process.env.TEST_DATABASE_URL;
  let pool: Pool;
  beforeAll(() => {
    if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (its global setup finds the database).');
    pool = new Pool({ connectionString: url, max: 1, pipeline: true } as ConstructorParameters<typeof Pool>[0]);
  });
  afterAll(() => pool.end());

  test('on a pipelined connection, statements sent inside leave in one write when it returns, and each gets its own answer', async () => {
    const client = await pool.connect();
    try {
      const socket = client.connection.stream as import('node:net').Socket;
      const before = socket.bytesWritten;
      let inside: { corked: number; given: number; held: number } | undefined;
      const answers = sentTogether(client, () => {
        const sent = [client.query('SELECT 1 AS n'), client.query('SELECT 2 AS n')];
        inside = { corked: socket.writableCorked, given: socket.bytesWritten - before, held: socket.writableLength };
        return sent;
      });
      // Inside: both statements handed to the socket within the calls, and all of it held
      // back by the cork; after: uncorked, so it leaves together.
      expect(inside!.corked).toBe(1);
      expect(inside!.given).toBeGreaterThan('SELECT 1 AS n'.length + 'SELECT 2 AS n'.length);
      expect(inside!.held).toBe(inside!.given);
      expect(socket.writableCorked).toBe(0);
      expect((await Promise.all(answers)).map((r) => r.rows[0].n)).toEqual([1, 2]);
    } finally {
      client.release();
    }
  });
});

describe('registeredRoutes', () => {
  test('lists the routes of the app and of routers mounted under a path or at /, in express\'s notation, a route\'s all() left out', () => {
    const app = express();
    const under = express.Router();
    under.post('/x/:id', (_req, res) => res.end());
    const atRoot = express.Router();
    atRoot.put('/y', (_req, res) => res.end());
    app.get('/a/:key', (_req, res) => res.end());
    app.route('/any').all((_req, res) => res.end());
    app.use('/r', under);
    app.use(atRoot);
    app.route('/b').get((_req, res) => res.end()).delete((_req, res) => res.end());
    expect(registeredRoutes(app)).toEqual([
      { method: 'GET', path: '/a/:key' },
      { method: 'POST', path: '/r/x/:id' },
      { method: 'PUT', path: '/y' },
      { method: 'GET', path: '/b' },
      { method: 'DELETE', path: '/b' },
    ]);
  });
});
