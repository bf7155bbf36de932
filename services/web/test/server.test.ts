import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { CONTENT_SECURITY_POLICY, createWebService, IMMUTABLE, type WebService } from '../src/app';
import { loadWebConfig } from '../src/config';
import { chooseEncoding } from '../src/static-files';

/**
 * The web service's server against a built app of its own (a fixture: an index.html and a
 * hashed script, each with its precompressed forms), in this process.
 */
const INDEX = '<!doctype html><html lang="en"><head><title>Tracker</title><script type="module" src="/assets/index-AbCd1234.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;
let dir: string;
let web: WebService;

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  fs.writeFileSync(`${file}.br`, brotliCompressSync(Buffer.from(text)));
  fs.writeFileSync(`${file}.gz`, gzipSync(Buffer.from(text)));
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-app-'));
  write(path.join(dir, 'index.html'), INDEX);
  write(path.join(dir, 'assets/index-AbCd1234.js'), SCRIPT);
  web = createWebService(loadWebConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WEB_STATIC_DIR: dir }));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const PAGE_PATHS = [
  '/',
  '/sign-in',
  '/setup',
  '/settings/tokens',
  '/issues',
  '/issues/OPS-12',
  '/queues/OPS',
  '/queues/OPS/permissions',
  '/dashboards',
  '/dashboards/7',
  '/statistics',
  '/admin/users',
  '/admin/queues',
];

describe('pages', () => {
  test.each(PAGE_PATHS)('when %s is asked for, then the app is answered, never cached, with the page headers', async (page) => {
    const res = await request(web.app).get(page).set('Accept', 'text/html').set('Accept-Encoding', 'identity');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toBe(INDEX);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  test('the Content-Security-Policy allows no inline or evaluated script, and no framing', () => {
    const directives = Object.fromEntries(CONTENT_SECURITY_POLICY.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
  });

  test('when a page is asked for with HEAD, then the same headers and no body', async () => {
    const res = await request(web.app).head('/sign-in').set('Accept-Encoding', 'identity');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(INDEX)));
    expect(res.text ?? '').toBe('');
  });

  test('when the setup link is opened, then its code (in the fragment) never reaches the server, and the page is answered', async () => {
    // A browser sends no fragment; a client that does gets the setup page for its path alone.
    const res = await request(web.app).get('/setup').set('Accept', 'text/html');
    expect(res.status).toBe(200);
  });
});

describe('assets', () => {
  test('when a hashed asset is asked for, then it is cached for a year as immutable', async () => {
    const res = await request(web.app).get('/assets/index-AbCd1234.js').set('Accept-Encoding', 'identity');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.text).toBe(SCRIPT);
  });

  test.each([
    ['br, gzip', 'br'],
    ['gzip, deflate', 'gzip'],
    ['gzip;q=0, br;q=0.5', 'br'],
    ['identity', undefined],
  ])('when the client takes %s, then the precompressed %s form is sent', async (accept, coding) => {
    const res = await request(web.app).get('/assets/index-AbCd1234.js').set('Accept-Encoding', accept).buffer(true);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers.vary).toBe('Accept-Encoding');
    // supertest decodes what it was sent: the bytes are the script whatever the coding.
    expect(res.text).toBe(SCRIPT);
  });

  test('a coding refused with q=0 is not chosen, and * stands for any coding not named', () => {
    const file = { type: 'x', identity: Buffer.from('a'), br: Buffer.from('b'), gzip: Buffer.from('g'), immutable: true };
    expect(chooseEncoding('br;q=0, gzip', file)).toBe('gzip');
    expect(chooseEncoding('*', file)).toBe('br');
    expect(chooseEncoding('*, br;q=0', file)).toBe('gzip');
    expect(chooseEncoding(undefined, file)).toBeUndefined();
  });

  test('when an asset that does not exist is asked for, then 404 problem+json, not cached', async () => {
    const res = await request(web.app).get('/assets/index-Zz999999.js');
    expect([res.status, res.headers['content-type'], res.body.code, res.headers['cache-control']]).toEqual([404, 'application/problem+json', 'not_found', 'no-store']);
  });
});

describe('paths that are no page', () => {
  test.each(['/nope', '/sign-in/', '/index.html', '/settings', '/settings/tokens/1', '/assets/', '/issues/', '/issues/OPS-1/comments', '/queues/OPS/board', '/admin', '/dashboards/abc', `/issues/${'K'.repeat(101)}`, '/issues/%E0%A4%A'])('when a browser asks for %s, then 404 with the app (its not-found page)', async (p) => {
    const res = await request(web.app).get(p).set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8').set('Accept-Encoding', 'identity');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toBe(INDEX);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  test.each(['/nope', '/favicon.ico'])('when anything else asks for %s, then 404 problem+json', async (p) => {
    const res = await request(web.app).get(p).set('Accept', 'application/json');
    expect([res.status, res.headers['content-type'], res.body.code]).toEqual([404, 'application/problem+json', 'not_found']);
  });

  test.each(['POST', 'PUT', 'DELETE', 'PATCH'] as const)('when a page is sent %s, then 404 problem+json', async (method) => {
    const res = await request(web.app)[method.toLowerCase() as 'post']('/sign-in').set('Accept', 'text/html');
    expect([res.status, res.headers['content-type']]).toEqual([404, 'application/problem+json']);
  });
});

describe('the service', () => {
  test('/healthz and /readyz answer', async () => {
    expect((await request(web.app).get('/healthz')).body).toEqual({ status: 'ok', service: 'web' });
    expect((await request(web.app).get('/readyz')).status).toBe(200);
  });

  test('the metrics label requests by a fixed set of routes, never by path', async () => {
    for (let i = 0; i < 5; i++) await request(web.app).get(`/made-up-${i}`).set('Accept', i % 2 ? 'text/html' : 'application/json');
    await request(web.app).get('/sign-in');
    await request(web.app).get('/assets/index-AbCd1234.js');
    const labels = new Set((await web.metrics.http.requests.get()).values.map((v) => String(v.labels.route)));
    expect([...labels].every((label) => ['page', 'asset', 'unmatched'].includes(label))).toBe(true);
  });

  test('without a built app it refuses to start, naming the build command', () => {
    expect(() => createWebService(loadWebConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WEB_STATIC_DIR: path.join(dir, 'missing') }))).toThrow(/scripts\/build\.mjs web/);
  });

  test('its port is 8085 unless PORT says otherwise', () => {
    expect(loadWebConfig({ WEB_STATIC_DIR: dir }).http.port).toBe(8085);
    expect(loadWebConfig({ WEB_STATIC_DIR: dir, PORT: '9000' }).http.port).toBe(9000);
  });
});
