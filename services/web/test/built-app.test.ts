import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createWebService } from '../src/app';
import { loadWebConfig } from '../src/config';

/**
 * The real app, built by Vite as `node scripts/build.mjs web` builds it (build-app.mjs),
 * into a folder of this test: what the first page loads stays within its budget, nothing
 * runs inline (the Content-Security-Policy would block it), and the server serves it.
 */
const BUDGET_GZIP_BYTES = 150 * 1024;
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-build-'));
  // Under NODE_ENV=test, as the suites' global setup builds it: the build must not follow it.
  execFileSync(process.execPath, [path.join(__dirname, '../build-app.mjs'), dir], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_ENV: 'test' } });
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const html = () => fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
/** The scripts the first page loads: its module scripts and their preloads. */
const firstPageScripts = () => [...html().matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]!);

test('the first page loads at most 150 KB of JavaScript gzipped, React included', () => {
  const scripts = firstPageScripts();
  expect(scripts.length).toBeGreaterThan(0);
  const total = scripts.reduce((sum, src) => sum + gzipSync(fs.readFileSync(path.join(dir, src))).length, 0);
  expect(total).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
});

test('the scripts are React`s production build, whatever NODE_ENV the build ran under', () => {
  const text = firstPageScripts().map((src) => fs.readFileSync(path.join(dir, src), 'utf8')).join('\n');
  // Messages only React's development build carries.
  expect(text).not.toMatch(/In HTML, %s cannot be a|react-dom\.development/);
});

test('the HTML has no inline script or style, and every script and style is a hashed file under /assets/', () => {
  const text = html();
  for (const tag of text.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/assets\/[\w-]+-[\w-]{8}\.js"/);
  expect(text).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
  expect(text).not.toMatch(/<style\b|\sstyle="/);
  expect(text).not.toMatch(/\son[a-z]+="/);
  for (const href of [...text.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1])) expect(href).toMatch(/^\/assets\/[\w-]+-[\w-]{8}\.css$/);
});

test('every text file has its brotli and gzip forms beside it', () => {
  const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(html|js|css)$/.test(f));
  for (const file of files) for (const suffix of ['.br', '.gz']) expect([file, fs.existsSync(path.join(dir, file + suffix))]).toEqual([file, true]);
});

test('the server serves the built app: the page, then each of its assets, immutable', async () => {
  const web = createWebService(loadWebConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WEB_STATIC_DIR: dir }));
  const page = await request(web.app).get('/settings/tokens').set('Accept-Encoding', 'gzip');
  expect([page.status, page.headers['content-encoding'], page.text]).toEqual([200, 'gzip', html()]);
  for (const src of firstPageScripts()) {
    const res = await request(web.app).get(src).set('Accept-Encoding', 'br');
    expect([src, res.status, res.headers['content-encoding'], res.headers['cache-control']]).toEqual([src, 200, 'br', 'public, max-age=31536000, immutable']);
  }
});
