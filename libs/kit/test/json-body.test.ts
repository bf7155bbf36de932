import http from 'node:http';
import { z } from 'zod';
import { DASHBOARD_LIMITS, DashboardInput, FILTER_LIMITS } from '@tracker/contracts';
import { createServiceApp, type ServiceAppOptions } from '../src/app';
import { BODY_LIMITS, BODY_MESSAGES, loneSurrogates, scanJson, type BodyLimits } from '../src/json-body';
import { createLogger } from '../src/logger';
import { issueTicket, PRINCIPAL_HEADER } from '../src/principal';
import { devSigningKey } from '@tracker/signing';
import { as, ticketedFetch as fetch, ticketOptions } from './tickets';
import { serve, type RunningServer } from '../src/server';
import { parseBody } from '../src/validation';

const scan = (text: string, limits?: BodyLimits) => scanJson(Buffer.from(text), limits);
const nested = (open: string, close: string, levels: number, inner = '1') => open.repeat(levels) + inner + close.repeat(levels);
const keys = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":1`).join(',');
const small: BodyLimits = { depth: 3, members: 4, elements: 5 };

/** A service app (ticket checks as "issues") with these routes, served on a free port. */
const serveServiceApp = (routes: ServiceAppOptions['routes']) =>
  serve(createServiceApp({ ...ticketOptions(), logger: createLogger('test', 'silent'), routes }), { port: 0, host: '127.0.0.1', logger: createLogger('test', 'silent'), graceMs: 200 });

describe('scanJson: limits', () => {
  test('the limits are those documented', () => {
    expect(BODY_LIMITS).toEqual({ depth: 32, members: 2_000, elements: 5_000 });
  });

  test('the widest and deepest valid body (a full dashboard, sent as an MCP tool call) stays within half of each limit', () => {
    // Id lists filled in turn up to the dashboard's total; every other filter set.
    let ids = DASHBOARD_LIMITS.ids;
    const list = () => {
      const n = Math.min(FILTER_LIMITS.ids, ids);
      ids -= n;
      return Array(n).fill(2_147_483_647);
    };
    const widgets = Array.from({ length: DASHBOARD_LIMITS.widgets }, () => ({
      type: 'stats',
      title: 't',
      filters: { search: 's', queue_ids: list(), status_ids: list(), assignee_ids: list(), mine: true, priority: 'low', category: 'open', overdue: true, label: 'l' },
    }));
    const dashboard = DashboardInput.parse({ name: 'Widest', widgets });
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_dashboard', arguments: dashboard, _meta: { progressToken: 1 } } };
    const half = { depth: BODY_LIMITS.depth / 2, members: BODY_LIMITS.members / 2, elements: BODY_LIMITS.elements / 2 };
    expect(ids).toBe(0);
    expect(scan(JSON.stringify(call), half).exceeded).toBeNull();
  });

  test.each([
    ['arrays', '[', ']'],
    ['objects', '{"a":', '}'],
  ])('nesting of %s: exactly the depth limit passes, one more is refused', (_name, open, close) => {
    expect(scan(nested(open, close, BODY_LIMITS.depth)).exceeded).toBeNull();
    expect(scan(nested(open, close, BODY_LIMITS.depth + 1)).exceeded).toBe('depth');
  });

  test('depth counts open containers only: siblings at the same level do not add up', () => {
    const siblings = `[${Array(1000).fill(nested('[', ']', BODY_LIMITS.depth - 1)).join(',')}]`;
    expect(scan(siblings, { ...BODY_LIMITS, elements: 1e9 }).exceeded).toBeNull();
  });

  test('members: every name: value pair of every object in the body counts', () => {
    expect(scan(`{${keys(BODY_LIMITS.members)}}`).exceeded).toBeNull();
    expect(scan(`{${keys(BODY_LIMITS.members + 1)}}`).exceeded).toBe('members');
    expect(scan('{"a":1,"b":{"c":2,"d":[{"e":3}]}}', { ...small, depth: 4 }).exceeded).toBe('members');
    expect(scan('{"a":1,"b":{"c":2,"d":[]}}', small).exceeded).toBeNull();
  });

  test('elements: every element of every array in the body counts, an empty array none', () => {
    expect(scan(`[${Array(BODY_LIMITS.elements).fill(1).join(',')}]`).exceeded).toBeNull();
    expect(scan(`[${Array(BODY_LIMITS.elements + 1).fill(1).join(',')}]`).exceeded).toBe('elements');
    expect(scan('{"a":[1,2],"b":[[3],[]]}', small).exceeded).toBeNull(); // 1, 2, [3], [], 3
    expect(scan('{"a":[1,2],"b":[[3,4],[]]}', small).exceeded).toBe('elements');
    expect(scan('[ [ ] , [ ] , [ ] , [ ] , [ ] ]', small).exceeded).toBeNull();
    expect(scan('[ [ ] , [ ] , [ ] , [ ] , [ ] , [ ] ]', small).exceeded).toBe('elements');
    expect(scan('[\n\t1\r\n]', { ...small, elements: 0 }).exceeded).toBe('elements');
  });

  test('brackets, braces, colons, commas, quotes and backslashes inside strings are text, not structure', () => {
    const tricky = JSON.stringify({ a: '[[[[{{{{', b: ':::,,,', c: 'say "hi" \\ ]]]}}}', d: '\\', e: '\\"[' });
    expect(JSON.parse(tricky)).toBeTruthy();
    expect(scan(tricky, { depth: 1, members: 5, elements: 0 })).toEqual({ exceeded: null, surrogateEscape: false });
    // A key with structure in it: one member.
    expect(scan('{"a:b,[c]{":1}', { depth: 1, members: 1, elements: 0 }).exceeded).toBeNull();
  });

  test('numbers, literals and whitespace are neither members nor containers', () => {
    expect(scan('[ -1.5e+10 , true , false , null , 0 ]', { depth: 1, members: 0, elements: 5 }).exceeded).toBeNull();
    expect(scan('  \r\n\t{ "a" : -0.0E-7 }  ', { depth: 1, members: 1, elements: 0 }).exceeded).toBeNull();
  });

  test('an 800 KB body 400,000 deep and a 90,000-key body stop the scan at once', () => {
    const deep = Buffer.from(`{"search":${nested('[', ']', 400_000)}}`);
    const wide = Buffer.from(`{${keys(90_000)}}`);
    expect(deep.length).toBeGreaterThan(800_000);
    expect(scanJson(deep).exceeded).toBe('depth');
    expect(scanJson(wide).exceeded).toBe('members');
  });

  test('on generated JSON (tricky strings, any nesting, pretty-printed or not), the counts are exactly those of the parsed value', () => {
    let seed = 42;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const pieces = ['"', '\\', '[', ']', '{', '}', ':', ',', ' ', 'a', 'é', '😀', '\n', '\\u', 'ud800'];
    const text = () => Array.from({ length: random(6) }, () => pieces[random(pieces.length)]).join('');
    const value = (level: number): unknown => {
      const pick = level > 6 ? random(4) : random(7);
      if (pick === 0) return text();
      if (pick === 1) return random(2) ? -random(1e6) / 7 : random(1e9);
      if (pick === 2) return [true, false, null][random(3)];
      if (pick === 3) return '';
      if (pick <= 4) return Array.from({ length: random(5) }, () => value(level + 1));
      return Object.fromEntries(Array.from({ length: random(5) }, () => [text(), value(level + 1)]));
    };
    // The reference: depth, members and elements counted on the parsed value.
    const counts = (v: unknown, level = 1): BodyLimits => {
      if (v === null || typeof v !== 'object') return { depth: 0, members: 0, elements: 0 };
      const items = Array.isArray(v) ? v : Object.values(v);
      const inner = items.map((item) => counts(item, level + 1));
      return {
        depth: Math.max(level, ...inner.map((c) => c.depth)),
        members: (Array.isArray(v) ? 0 : items.length) + inner.reduce((n, c) => n + c.members, 0),
        elements: (Array.isArray(v) ? items.length : 0) + inner.reduce((n, c) => n + c.elements, 0),
      };
    };
    for (let run = 0; run < 500; run++) {
      const parsed = { root: value(1) };
      const raw = JSON.stringify(parsed, null, run % 3 === 0 ? 2 : undefined);
      const exact = counts(JSON.parse(raw));
      expect(scan(raw, exact).exceeded).toBeNull();
      for (const limit of ['depth', 'members', 'elements'] as const) {
        if (exact[limit] > 0) expect([raw, scan(raw, { ...exact, [limit]: exact[limit] - 1 }).exceeded]).toEqual([raw, limit]);
      }
    }
  });

  test('malformed JSON is scanned without throwing (JSON.parse refuses it later)', () => {
    for (const text of ['', '{', '}}}]]]', '"unterminated', '{"a":"\\', '[,,,]', '\\u']) {
      expect(() => scan(text)).not.toThrow();
    }
  });
});

describe('scanJson: surrogate escapes', () => {
  test.each([
    ['\\ud800', true],
    ['\\uD800', true],
    ['\\udc00', true],
    ['\\uDFFF', true],
    ['\\ud83d\\ude00', true], // a pair: flagged, the walk then finds nothing
    ['\\u00e9', false],
    ['\\ue000', false],
    ['\\ud7ff', false],
    ['\\\\ud800', false], // an escaped backslash, then the text "ud800"
    ['\\\\\\ud800', true],
    ['ud800', false],
  ])('a string holding %s: flagged %s', (escaped, flagged) => {
    expect(scan(`{"title":"${escaped}"}`).surrogateEscape).toBe(flagged);
    expect(scan(`{"${escaped}":1}`).surrogateEscape).toBe(flagged);
  });

  test('an escape outside any string is not a surrogate (malformed JSON)', () => {
    expect(scan('[\\ud800]').surrogateEscape).toBe(false);
  });
});

describe('loneSurrogates', () => {
  test('finds every lone surrogate with its path, in values and field names, and nothing else', () => {
    const body = JSON.parse('{"ok":"😀 \\ud83d\\ude00","title":"a\\ud800","labels":["x","\\udc00"],"widgets":[{},{"filters":{"search":"\\udbff\\udbff"}}],"k\\ud800":{"\\udfff":"y"}}');
    expect(loneSurrogates(body)).toEqual([
      { path: 'title', message: BODY_MESSAGES.loneSurrogate },
      { path: 'labels.1', message: BODY_MESSAGES.loneSurrogate },
      { path: 'widgets.1.filters.search', message: BODY_MESSAGES.loneSurrogate },
      { path: 'k\ufffd', message: BODY_MESSAGES.loneSurrogateKey },
      { path: 'k\ufffd.\ufffd', message: BODY_MESSAGES.loneSurrogateKey },
    ]);
  });

  test('well-formed values, numbers and null are fine; a bare string is "(body)"', () => {
    expect(loneSurrogates({ a: 'é😀', b: [1, null, true], c: { d: '\u{10ffff}' } })).toEqual([]);
    expect(loneSurrogates('\ud800')).toEqual([{ path: '(body)', message: BODY_MESSAGES.loneSurrogate }]);
  });
});

describe('through a service app', () => {
  const principal = as({ kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'member', tokenId: 1 })['x-tracker-principal'];
  const Echo = z.strictObject({ name: z.string(), tags: z.array(z.string()).max(10).optional() });
  let running: RunningServer;
  beforeAll(async () => {
    running = await serveServiceApp((router) => {
      router.post('/api/v1/echo', (req, res) => {
        res.json(parseBody(Echo, req.body));
      });
    });
  });
  afterAll(() => running.shutdown());

  const post = async (body: string | Buffer, contentType = 'application/json') => {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${running.port}/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-tracker-principal': principal },
      body,
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any, ms: performance.now() - started };
  };
  const refusedAt = (path: string, message: string) => ({
    status: 422,
    type: expect.stringMatching(/^application\/problem\+json/),
    body: expect.objectContaining({ code: 'validation_failed', errors: [{ path, message }] }),
    ms: expect.any(Number),
  });

  test('a valid body passes, pairs and escaped backslashes included', async () => {
    const res = await post('{"name":"\\ud83d\\ude00 \\\\ud800","tags":["é"]}');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { name: '😀 \\ud800', tags: ['é'] } });
  });

  test.each([
    ['a value', '{"name":"\\ud800"}', 'name', BODY_MESSAGES.loneSurrogate],
    ['an array element', '{"name":"x","tags":["a","\\udc00"]}', 'tags.1', BODY_MESSAGES.loneSurrogate],
    ['a field name', '{"name":"x","\\ud800":1}', '\ufffd', BODY_MESSAGES.loneSurrogateKey],
  ])('a lone surrogate in %s is 422 naming it, before the route validates anything', async (_name, raw, path, message) => {
    expect(await post(raw)).toEqual(refusedAt(path, message));
  });

  test.each([
    ['0xFF', [0xff]],
    ['a UTF-8-encoded surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
  ])('bytes that are not UTF-8 (%s) are 422 at (body)', async (_name, bad) => {
    const raw = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bad), Buffer.from('"}')]);
    expect(await post(raw)).toEqual(refusedAt('(body)', BODY_MESSAGES.notUtf8));
  });

  test('a charset other than UTF-8 is 422 at (body)', async () => {
    expect(await post(Buffer.from('{"name":"a"}', 'utf16le'), 'application/json; charset=utf-16le')).toEqual(refusedAt('(body)', BODY_MESSAGES.notUtf8Charset));
    expect((await post('{"name":"a"}', 'application/json; charset=UTF-8')).status).toBe(200);
  });

  test.each([
    ['nested one level too deep', () => `{"name":${nested('[', ']', BODY_LIMITS.depth)}}`, BODY_MESSAGES.depth],
    ['with one member too many', () => `{"name":"x",${keys(BODY_LIMITS.members)}}`, BODY_MESSAGES.members],
    ['with one array element too many', () => `{"name":"x","tags":[${Array(BODY_LIMITS.elements + 1).fill(0).join(',')}]}`, BODY_MESSAGES.elements],
  ])('a body %s is 422 at (body) naming the limit', async (_name, make, message) => {
    expect(await post(make())).toEqual(refusedAt('(body)', message));
  });

  test('at the limits, validation answers as usual', async () => {
    expect((await post(`{"name":${nested('[', ']', BODY_LIMITS.depth - 1)}}`)).body.errors).toEqual([{ path: 'name', message: expect.any(String) }]);
    expect((await post(`{"name":"x",${keys(BODY_LIMITS.members - 1)}}`)).body.errors[0]).toEqual({ path: 'k0', message: 'unknown field' });
  });

  test('the 800 KB deep body and the 90,000-key body are refused before anything parses them (parsed, they took 100-200 ms)', async () => {
    const deep = `{"name":${nested('[', ']', 400_000)}}`;
    const wide = `{${keys(90_000)}}`;
    // The server runs in this process: JSON.parse given either body would be the cost the
    // limits exist to avoid, whatever the machine's speed.
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const d = await post(deep);
      const w = await post(wide);
      expect([d.body.errors, w.body.errors]).toEqual([[{ path: '(body)', message: BODY_MESSAGES.depth }], [{ path: '(body)', message: BODY_MESSAGES.members }]]);
      const bigParses = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= wide.length / 2);
      expect(bigParses.length).toBe(0);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('requests with and without a body, as body-parser decides', () => {
  const user = { kind: 'user' as const, userId: 1, workspaceId: 1, workspaceRole: 'member' as const, tokenId: 1 };
  let running: RunningServer;
  beforeAll(async () => {
    running = await serveServiceApp((router) => {
      router.all('/api/v1/body', (req, res) => {
        res.json({ body: req.body === undefined ? '(none)' : Buffer.isBuffer(req.body) ? `${req.body.length} bytes` : req.body });
      });
    });
  });
  afterAll(() => running.shutdown());

  /** One request as sent on the wire (fetch sends no body with a GET), its ticket made for `body`. */
  const send = (method: string, headers: Record<string, string>, body?: string, ticketBody = body) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const ticket = issueTicket(devSigningKey('gateway'), { audience: 'issues', method, path: '/api/v1/body', body: ticketBody === undefined ? undefined : Buffer.from(ticketBody), user });
      const req = http.request({ host: '127.0.0.1', port: running.port, method, path: '/api/v1/body', headers: { ...headers, [PRINCIPAL_HEADER]: ticket } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      req.end(body);
    });

  test('neither Content-Length nor Transfer-Encoding: no body is read, the ticket is for no bytes', async () => {
    expect(await send('GET', {})).toEqual({ status: 200, body: { body: '(none)' } });
    expect(await send('DELETE', {})).toEqual({ status: 200, body: { body: '(none)' } });
  });

  test('Content-Length: 0 with JSON is read: an empty JSON body is {}', async () => {
    expect(await send('POST', { 'content-type': 'application/json', 'content-length': '0' }, '')).toEqual({ status: 200, body: { body: {} } });
  });

  test('a chunked GET body is read, parsed and bound to the ticket', async () => {
    expect(await send('GET', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, '{"a":1}')).toEqual({ status: 200, body: { body: { a: 1 } } });
    expect(await send('GET', { 'transfer-encoding': 'chunked' }, 'raw bytes')).toEqual({ status: 200, body: { body: '9 bytes' } });
    expect((await send('GET', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, '{"a":1}', '{"a":2}')).status).toBe(401);
  });

  test('a ticket made for a body refuses the same request sent without one', async () => {
    expect((await send('GET', {}, undefined, '{"a":1}')).status).toBe(401);
  });
});
