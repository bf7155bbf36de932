import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startFakeUpstream, type FakeUpstream, type UpstreamHandler, type UpstreamRequest } from '@tracker/testing';
import { createWebhookSender, type Resolve } from '../src/data-access/webhook-sender';
import { NO_ALLOWED_TARGETS, parseAllowedTargetsOrThrow } from '../src/domain/targets.rules';
import { newWebhookSecret, webhookHeaders } from '../src/domain/webhook-signature.rules';

/**
 * The sender against real servers on 127.0.0.1 (allow-listed unless a test says otherwise):
 * what it reports for each kind of answer, that it follows no redirect, bounds time and
 * bytes, and never connects to an address it refused, however the name resolves.
 */
interface TestServer extends FakeUpstream {
  received: UpstreamRequest[];
  /** Resolves when a request's connection has closed. */
  closed: Promise<void>;
}

const servers: TestServer[] = [];

async function startServer(answer: UpstreamHandler): Promise<TestServer> {
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const upstream = await startFakeUpstream((request, res) => {
    res.on('close', onClosed);
    return answer(request, res);
  });
  const entry: TestServer = { ...upstream, received: upstream.requests, closed };
  servers.push(entry);
  return entry;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const LOCAL = parseAllowedTargetsOrThrow('127.0.0.1');
const now = () => Math.floor(Date.now() / 1000);
const event = JSON.stringify({ id: 'evt_1', type: 'issue.created', data: { title: 'Café' } });

function delivery(url: string, secret = newWebhookSecret()) {
  return { url, headers: webhookHeaders(secret, 'evt_1', now(), event), body: event };
}

/** A resolver that answers from a table, one answer per call in turn (the last repeats); `calls` counts them. */
function scriptedResolver(answers: Record<string, string[][]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (async (host: string) => {
    calls.push(host);
    const script = answers[host];
    if (!script) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const seen = calls.filter((h) => h === host).length;
    return script[Math.min(seen, script.length) - 1]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as Resolve & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

describe('a delivery to an allowed local server', () => {
  test('a 2xx is reported, and what the server received verifies with the standardwebhooks library', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const secret = newWebhookSecret();
    const result = await createWebhookSender({ allowed: LOCAL }).send(delivery(`${server.url}/hooks/tracker?k=1#frag`, secret));
    expect(result).toEqual({ statusCode: 204, durationMs: expect.any(Number), error: null });
    expect(server.received).toHaveLength(1);
    const [got] = server.received;
    expect(got).toMatchObject({ method: 'POST', url: '/hooks/tracker?k=1', body: event });
    expect(got!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Tracker-Webhooks/1.0', 'webhook-id': 'evt_1', 'content-length': String(Buffer.byteLength(event)) });
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(event));
  });

  test.each([200, 202, 299])('%i is reported as it is', async (status) => {
    const server = await startServer((_req, res) => res.writeHead(status).end('ok'));
    expect(await createWebhookSender({ allowed: LOCAL }).send(delivery(server.url))).toMatchObject({ statusCode: status, error: null });
  });

  test('a 500 and a 410 are reported with their status (the caller decides: a retry, or disabling the webhook)', async () => {
    const failing = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const gone = await startServer((_req, res) => res.writeHead(410).end());
    const sender = createWebhookSender({ allowed: LOCAL });
    expect(await sender.send(delivery(failing.url))).toMatchObject({ statusCode: 500, error: null });
    expect(await sender.send(delivery(gone.url))).toMatchObject({ statusCode: 410, error: null });
  });

  test('a 302 is reported and not followed: the server it points to sees nothing', async () => {
    const target = await startServer((_req, res) => res.writeHead(200).end());
    const redirecting = await startServer((_req, res) => res.writeHead(302, { location: `${target.url}/elsewhere` }).end());
    const result = await createWebhookSender({ allowed: LOCAL }).send(delivery(redirecting.url));
    expect(result).toMatchObject({ statusCode: 302, error: null });
    expect(redirecting.received).toHaveLength(1);
    expect(target.connections()).toBe(0);
  });

  test('a server that never answers: timed out, no status', async () => {
    const silent = await startServer(() => undefined);
    const result = await createWebhookSender({ allowed: LOCAL, timeoutMs: 300 }).send(delivery(silent.url));
    expect(result).toEqual({ statusCode: null, durationMs: expect.any(Number), error: 'timed out after 300 ms' });
    await silent.closed;
  });

  test('a server that sends its headers and then a body that never ends: timed out, the status named in the error', async () => {
    const stalling = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const result = await createWebhookSender({ allowed: LOCAL, timeoutMs: 300 }).send(delivery(stalling.url));
    expect(result).toMatchObject({ statusCode: null, error: 'timed out after 300 ms reading the answer (status 200)' });
  });

  test('an endless body is read up to maxResponseBytes, then the connection is closed: the status stands', async () => {
    let sent = 0;
    const endless = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      const pump = () => {
        for (;;) {
          if (res.destroyed) return;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    // A long timeout: only the byte bound can end this delivery without an error.
    const result = await createWebhookSender({ allowed: LOCAL, timeoutMs: 30_000, maxResponseBytes: 64 * 1024 }).send(delivery(endless.url));
    expect(result).toMatchObject({ statusCode: 200, error: null });
    // The server would go on for ever: it stopped because the sender closed the connection.
    await endless.closed;
    expect(sent).toBeGreaterThan(64 * 1024);
  });

  test('a closed port: connection refused', async () => {
    const server = await startServer(() => undefined);
    const { port } = server;
    await server.close();
    expect(await createWebhookSender({ allowed: LOCAL }).send(delivery(`http://127.0.0.1:${port}/`))).toMatchObject({ statusCode: null, error: 'connection refused' });
  });

  test('a URL of another scheme, or with credentials, is refused before any connection', async () => {
    const sender = createWebhookSender({ allowed: LOCAL });
    expect(await sender.send(delivery('ftp://127.0.0.1/x'))).toMatchObject({ statusCode: null, error: 'refused: the URL must be an http or https URL' });
    const server = await startServer((_req, res) => res.writeHead(200).end());
    expect(await sender.send(delivery(`http://u:p@127.0.0.1:${server.port}/`))).toMatchObject({ error: 'refused: the URL must not hold a user name or password' });
    expect(server.connections()).toBe(0);
  });
});

describe('request forgery', () => {
  test('without the allow-list, a loopback server is refused and sees no connection, by address or by name', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS });
    expect(await sender.checkUrl(server.url)).toBe('must point to a public address: 127.0.0.1, a loopback address');
    expect(await sender.send(delivery(server.url))).toMatchObject({ statusCode: null, error: 'refused: 127.0.0.1, a loopback address' });
    const byName = await sender.send(delivery(`http://localhost:${server.port}/`));
    expect(byName.statusCode).toBeNull();
    expect(byName.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);
    expect(await sender.checkUrl(`http://[::ffff:127.0.0.1]:${server.port}/`)).toBe('must point to a public address: ::ffff:7f00:1, a loopback address');
    expect(await sender.send(delivery(`http://[::ffff:127.0.0.1]:${server.port}/`))).toMatchObject({ error: 'refused: ::ffff:7f00:1, a loopback address' });
    expect(await sender.send(delivery(`http://0x7f.1:${server.port}/`))).toMatchObject({ error: 'refused: 127.0.0.1, a loopback address' });
    expect(server.connections()).toBe(0);
  });

  test('the metadata address is refused by name', async () => {
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve: scriptedResolver({ 'meta.test': [['169.254.169.254']] }) });
    expect(await sender.checkUrl('http://169.254.169.254/latest/meta-data/')).toBe('must point to a public address: 169.254.169.254, a metadata address');
    expect(await sender.checkUrl('http://meta.test/')).toBe('must point to a public address: meta.test resolves to 169.254.169.254, a metadata address');
    expect(await sender.checkUrl('http://[fd00:ec2::254]/')).toBe('must point to a public address: fd00:ec2::254, a metadata address');
  });

  test('a name with one public and one private address is refused: every address is checked', async () => {
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve: scriptedResolver({ 'mixed.test': [['93.184.216.34', '10.0.0.7']] }) });
    expect(await sender.checkUrl('https://mixed.test/')).toBe('must point to a public address: mixed.test resolves to 10.0.0.7, a private address');
  });

  test('a name that does not resolve is refused', async () => {
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve: scriptedResolver({}) });
    expect(await sender.checkUrl('https://nowhere.test/')).toBe('must point to a public address: nowhere.test does not resolve');
    expect(await sender.send(delivery('https://nowhere.test/'))).toMatchObject({ statusCode: null, error: 'refused: nowhere.test does not resolve' });
    const empty = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve: async () => [] });
    expect(await empty.checkUrl('https://empty.test/')).toBe('must point to a public address: empty.test does not resolve');
  });

  test('a public name is accepted by checkUrl', async () => {
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve: scriptedResolver({ 'hooks.example.com': [['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']] }) });
    expect(await sender.checkUrl('https://hooks.example.com/tracker')).toBeNull();
    expect(await sender.checkUrl('ftp://hooks.example.com/')).toBe('must be an http or https URL');
  });

  test('DNS rebinding: a name public when the URL was checked and loopback at the connection is refused at the connection; the server sees nothing', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const resolve = scriptedResolver({ 'rebind.test': [['93.184.216.34'], ['127.0.0.1']] });
    const sender = createWebhookSender({ allowed: NO_ALLOWED_TARGETS, resolve });
    const url = `http://rebind.test:${server.port}/`;
    expect(await sender.checkUrl(url)).toBeNull();
    expect(await sender.send(delivery(url))).toMatchObject({ statusCode: null, error: 'refused: rebind.test resolves to 127.0.0.1, a loopback address' });
    expect(resolve.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(server.connections()).toBe(0);
  });

  test('an allowed name connects to the address the checked lookup gave, and sends the name as Host', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const resolve = scriptedResolver({ 'hooks.test': [['127.0.0.1']] });
    const result = await createWebhookSender({ allowed: LOCAL, resolve }).send(delivery(`http://hooks.test:${server.port}/in`));
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(resolve.calls).toEqual(['hooks.test']);
    expect(server.received[0]!.headers.host).toBe(`hooks.test:${server.port}`);
  });

  test('an allow-list by host name admits that name whatever it resolves to, and no other name', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const resolve = scriptedResolver({ 'hooks.internal': [['127.0.0.1']], 'other.internal': [['127.0.0.1']] });
    const sender = createWebhookSender({ allowed: parseAllowedTargetsOrThrow('hooks.internal'), resolve });
    expect(await sender.send(delivery(`http://hooks.internal:${server.port}/`))).toMatchObject({ statusCode: 200, error: null });
    expect(await sender.send(delivery(`http://other.internal:${server.port}/`))).toMatchObject({ statusCode: null, error: 'refused: other.internal resolves to 127.0.0.1, a loopback address' });
    expect(server.connections()).toBe(1);
  });

  test('a URL whose host is allowed by name is accepted without resolving it (it may resolve only where deliveries run); others still are', async () => {
    const asked: string[] = [];
    const resolve: Resolve = async (host) => {
      asked.push(host);
      throw Object.assign(new Error('no such host'), { code: 'ENOTFOUND' });
    };
    const sender = createWebhookSender({ allowed: parseAllowedTargetsOrThrow('Hooks.Example.com'), resolve });
    expect(await sender.checkUrl('https://hooks.example.com./tracker')).toBeNull();
    expect(await sender.checkUrl('https://other.example.com/tracker')).toMatch(/other\.example\.com does not resolve/);
    expect(asked).toEqual(['other.example.com']);
  });
});

describe('TLS', () => {
  test('the certificate is verified as usual, against the host name sent as SNI (not the address)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-tls-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.test', '-addext', 'subjectAltName=DNS:hooks.test', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`this test makes its certificate with openssl: ${made.error?.message ?? made.stderr}`);
    const names: string[] = [];
    let requests = 0;
    const server = https.createServer(
      {
        key: fs.readFileSync(path.join(dir, 'key.pem')),
        cert: fs.readFileSync(path.join(dir, 'cert.pem')),
        SNICallback: (name, done) => {
          names.push(name);
          done(null);
        },
      },
      (_req, res) => {
        requests++;
        res.writeHead(200).end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const sender = createWebhookSender({ allowed: LOCAL, resolve: scriptedResolver({ 'hooks.test': [['127.0.0.1']] }) });
      const result = await sender.send(delivery(`https://hooks.test:${port}/`));
      expect(result.statusCode).toBeNull();
      expect(result.error).toMatch(/^TLS: self[- ]signed certificate/);
      expect(names).toEqual(['hooks.test']);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
