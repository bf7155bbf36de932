import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '@tracker/contracts';
import { createTrackerClient, dashboardStatistics, events, newIdempotencyKey, POSTS_SENT_ONCE, TrackerApiError, updateIssueSafely, UpdateConflictError, type IssueDetails, type PublicEvent } from '../src';

test('the committed types are those generated from the current OpenAPI document', () => {
  const committed = fs.readFileSync(path.join(__dirname, '../src/api.d.ts'), 'utf8');
  // The generator is ESM-only: run it as the script does, in its own process.
  const generated = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-types.ts', '--stdout'], { cwd: path.join(__dirname, '..'), encoding: 'utf8' });
  // Stale types: run `pnpm --filter @tracker/client generate:types`.
  expect(committed).toBe(generated);
});

/** A fake server: one issue with a version; `interfere` bumps it between a read and a PATCH. */
function fakeTracker(options: { interfere?: (attempt: number) => boolean; patchStatus?: number } = {}) {
  const issue = { id: 1, key: 'WEB-1', title: 'Start', labels: [] as string[], version: 1 } as unknown as IssueDetails & { labels: string[] };
  const calls: Array<{ method: string; url: string; body?: any; authorization: string | null; ifMatch: string | null }> = [];
  let reads = 0;
  const json = (status: number, body: unknown, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
  const fetch = async (input: Request) => {
    const body = input.method === 'PATCH' ? ((await input.json()) as Record<string, any>) : undefined;
    const ifMatch = input.headers.get('if-match');
    calls.push({ method: input.method, url: input.url, body, authorization: input.headers.get('authorization'), ifMatch });
    if (input.method === 'GET') {
      reads += 1;
      const snapshot = structuredClone(issue);
      const response = json(200, snapshot);
      response.headers.set('etag', `"${snapshot.version}-0123456789abcdef"`);
      if (options.interfere?.(reads)) issue.version += 1;
      return response;
    }
    if (options.patchStatus) return json(options.patchStatus, { code: 'forbidden', status: options.patchStatus, detail: 'No.', title: 'Not enough rights', type: 'x' }, 'application/problem+json');
    if (ifMatch !== null && ifMatch !== `"${issue.version}-0123456789abcdef"`) {
      return json(412, { code: 'precondition_failed', status: 412, detail: 'Stale.', title: 'Precondition failed', type: 'x', version: issue.version }, 'application/problem+json');
    }
    if (body!.version !== issue.version) {
      return json(409, { code: 'version_conflict', status: 409, detail: 'Stale.', title: 'Version conflict', type: 'x', version: issue.version }, 'application/problem+json');
    }
    Object.assign(issue, body, { version: issue.version + 1 });
    return json(200, issue);
  };
  const client = createTrackerClient({ baseUrl: 'http://tracker.test/', token: 'trk_test', fetch });
  return { client, calls, issue };
}

describe('updateIssueSafely', () => {
  test('when nobody else writes, then one read and one PATCH under If-Match with the tag read (and the version read)', async () => {
    const { client, calls } = fakeTracker();
    const updated = await updateIssueSafely(client, 'WEB-1', (issue) => ({ labels: [...issue.labels, 'a'] }));
    expect(updated).toMatchObject({ version: 2, labels: ['a'] });
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['GET', 'http://tracker.test/api/v1/issues/WEB-1', undefined],
      ['PATCH', 'http://tracker.test/api/v1/issues/WEB-1', { labels: ['a'], version: 1 }],
    ]);
    expect(calls.map((c) => c.ifMatch)).toEqual([null, '"1-0123456789abcdef"']);
    expect(calls.every((c) => c.authorization === 'Bearer trk_test')).toBe(true);
  });

  test('when the issue changes between read and write, then it re-reads and applies the change to the new state', async () => {
    const { client, calls } = fakeTracker({ interfere: (read) => read <= 2 });
    const seen: number[] = [];
    const updated = await updateIssueSafely(client, 'WEB-1', (issue) => {
      seen.push(issue.version);
      return { labels: [...issue.labels, 'mine'] };
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body.version)).toEqual([1, 2, 3]);
    expect(updated).toMatchObject({ version: 4, labels: ['mine'] });
  });

  test('when every attempt conflicts, then it gives up after maxAttempts with UpdateConflictError', async () => {
    const { client, calls } = fakeTracker({ interfere: () => true });
    await expect(updateIssueSafely(client, 'WEB-1', () => ({ title: 'x' }), { maxAttempts: 3 })).rejects.toEqual(new UpdateConflictError('WEB-1', 3));
    expect(calls.map((c) => c.method)).toEqual(['GET', 'PATCH', 'GET', 'PATCH', 'GET', 'PATCH']);
  });

  test('when the change function returns null, then nothing is written', async () => {
    const { client, calls } = fakeTracker();
    expect(await updateIssueSafely(client, 'WEB-1', () => null)).toMatchObject({ version: 1 });
    expect(calls.map((c) => c.method)).toEqual(['GET']);
  });

  test('when the PATCH is refused for another reason, then that error is thrown at once', async () => {
    const { client, calls } = fakeTracker({ patchStatus: 403 });
    const failure = updateIssueSafely(client, 'WEB-1', () => ({ title: 'x' }));
    await expect(failure).rejects.toBeInstanceOf(TrackerApiError);
    await expect(failure).rejects.toMatchObject({ status: 403, problem: { code: 'forbidden' } });
    expect(calls.map((c) => c.method)).toEqual(['GET', 'PATCH']);
  });
});

describe('POSTs of the client', () => {
  /** A fake server for POST /api/v1/issues/{key}/comments: `failures` first (a thrown network error or a status), then 201. */
  function fakePosts(failures: Array<'network' | number>) {
    const seen: Array<{ key: string | null; body: unknown }> = [];
    const fetch = async (request: Request) => {
      seen.push({ key: request.headers.get('idempotency-key'), body: await request.json() });
      const failure = failures.shift();
      if (failure === 'network') throw new TypeError('fetch failed');
      if (failure !== undefined) return new Response(JSON.stringify({ code: 'service_unavailable', status: failure }), { status: failure, headers: { 'content-type': 'application/problem+json' } });
      return new Response(JSON.stringify({ id: 1, body: 'hi' }), { status: 201, headers: { 'content-type': 'application/json' } });
    };
    const client = createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch });
    const post = (headers?: Record<string, string>) =>
      client.POST('/api/v1/issues/{key}/comments', { params: { path: { key: 'WEB-1' } }, body: { body: 'hi' }, ...(headers ? { headers } : {}) });
    return { seen, post };
  }

  test('when a POST is sent, then it carries a new UUID as Idempotency-Key, another one for the next POST', async () => {
    const { seen, post } = fakePosts([]);
    await post();
    await post();
    expect(seen.map((s) => s.key)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(seen[0]!.key).not.toBe(seen[1]!.key);
  });

  test('when crypto.randomUUID is missing (a page on plain http), then the key is still a random version-4 UUID', () => {
    const withoutRandomUuid = { getRandomValues: <T extends Uint8Array>(array: T) => globalThis.crypto.getRandomValues(array) };
    const keys = new Set(Array.from({ length: 50 }, () => newIdempotencyKey(withoutRandomUuid)));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('when the caller gives an Idempotency-Key, then that key is sent', async () => {
    const { seen, post } = fakePosts([]);
    await post({ 'Idempotency-Key': 'mine-1' });
    expect(seen.map((s) => s.key)).toEqual(['mine-1']);
  });

  test('when the connection fails and then a 503 comes, then the POST is sent again with the same key and body, and the 201 is the answer', async () => {
    const { seen, post } = fakePosts(['network', 503]);
    const { data, response } = await post();
    expect(response.status).toBe(201);
    expect(data).toEqual({ id: 1, body: 'hi' });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(seen.map((s) => s.body)).toEqual([{ body: 'hi' }, { body: 'hi' }, { body: 'hi' }]);
  });

  test('when every attempt fails, then after 3 sends the last failure is the answer', async () => {
    const { seen, post } = fakePosts([503, 503, 503, 503]);
    const { error, response } = await post();
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ code: 'service_unavailable' });
    expect(seen).toHaveLength(3);
  });

  test('when a 503 says Retry-After: 1, then the retry waits that second', async () => {
    const seen: unknown[] = [];
    let first = true;
    const started = Date.now();
    const fetch = async (request: Request) => {
      seen.push(request.headers.get('idempotency-key'));
      if (!first) return new Response('{}', { status: 201, headers: { 'content-type': 'application/json' } });
      first = false;
      return new Response('{}', { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' } });
    };
    const client = createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch });
    const { response } = await client.POST('/api/v1/issues/{key}/comments', { params: { path: { key: 'WEB-1' } }, body: { body: 'hi' } });
    expect(response.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
  });

  test('when a request is cancelled by its caller, then it is not sent again', async () => {
    let sends = 0;
    const controller = new AbortController();
    const fetch = async () => {
      sends += 1;
      controller.abort();
      throw new DOMException('aborted', 'AbortError');
    };
    const client = createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch });
    await expect(client.POST('/api/v1/issues/{key}/comments', { params: { path: { key: 'WEB-1' } }, body: { body: 'hi' }, signal: controller.signal })).rejects.toThrow();
    expect(sends).toBe(1);
  });

  test('when a PATCH or a GET is answered 503, then it is not sent again (only POSTs carry a key)', async () => {
    const methods: string[] = [];
    const fetch = async (request: Request) => {
      methods.push(request.method);
      return new Response('{}', { status: 503, headers: { 'content-type': 'application/problem+json' } });
    };
    const client = createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch });
    await client.GET('/api/v1/issues/{key}', { params: { path: { key: 'WEB-1' } } });
    await client.PATCH('/api/v1/issues/{key}', { params: { path: { key: 'WEB-1' } }, body: { title: 'x' } });
    expect(methods).toEqual(['GET', 'PATCH']);
  });

  test('when a POST is answered 4xx, then it is not sent again', async () => {
    const { seen, post } = fakePosts([422]);
    expect((await post()).response.status).toBe(422);
    expect(seen).toHaveLength(1);
  });

  test('then the POSTs sent once are exactly those the document gives no Idempotency-Key', () => {
    const withoutKey = Object.entries(openApiDocument().paths as Record<string, Record<string, any>>)
      .filter(([, item]) => item.post && !(item.post.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key'))
      .map(([path]) => path);
    expect([...POSTS_SENT_ONCE].sort()).toEqual(withoutKey.sort());
  });

  test.each([
    ['a personal token', '/api/v1/tokens', () => ({ body: { name: 'CI', expires_in_days: null } })],
    ['an invitation', '/api/v1/users', () => ({ body: { name: 'Grace', email: 'grace@example.com' } })],
    ['a setup link', '/api/v1/users/{user_id}/setup-link', () => ({ params: { path: { user_id: 2 } } })],
  ] as const)('when the POST of %s meets a 503 or a lost connection, then it is sent once, without a key: a repeat would not be replayed', async (_what, path, options) => {
    for (const failure of ['network', 503] as const) {
      const seen: Array<string | null> = [];
      const fetch = async (request: Request) => {
        seen.push(request.headers.get('idempotency-key'));
        if (failure === 'network') throw new TypeError('fetch failed');
        return new Response(JSON.stringify({ code: 'service_unavailable', status: 503 }), { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '0' } });
      };
      const client = createTrackerClient({ baseUrl: 'http://tracker.test/', token: 'trk_test', fetch });
      const sent = client.POST(path as never, options() as never);
      if (failure === 'network') await expect(sent).rejects.toThrow('fetch failed');
      else expect((await sent).response.status).toBe(503);
      expect([failure, seen]).toEqual([failure, [null]]);
    }
  });
});

describe('dashboardStatistics', () => {
  /** A fake POST /api/v1/statistics answering each filter's `label` as its total, after `delayMs`; counts requests in flight. */
  function fakeStatistics(options: { delayMs?: number; failOn?: string } = {}) {
    let inFlight = 0;
    let mostInFlight = 0;
    const bodies: unknown[] = [];
    const fetch = async (input: Request) => {
      const body = (await input.json()) as { label: string };
      bodies.push(body);
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 5));
      inFlight -= 1;
      if (body.label === options.failOn) {
        return new Response(JSON.stringify({ code: 'forbidden', status: 403, detail: 'No.', title: 'Forbidden', type: 'x' }), { status: 403, headers: { 'content-type': 'application/problem+json' } });
      }
      return new Response(JSON.stringify({ total: Number(body.label) }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    return { client: createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch }), bodies, mostInFlight: () => mostInFlight };
  }
  const widgets = (n: number) => Array.from({ length: n }, (_, i) => ({ filters: { label: String(i) } as never }));

  test('when a dashboard has 30 widgets, then each gets its own statistics, in the widgets\' order, 6 requests at a time', async () => {
    const fake = fakeStatistics();
    const results = await dashboardStatistics(fake.client, widgets(30));
    expect(results.map((r) => r.total)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(fake.bodies).toHaveLength(30);
    expect(fake.mostInFlight()).toBe(6);
  });

  test('when a concurrency is given, then no more requests than that are in flight; an empty dashboard sends nothing', async () => {
    const fake = fakeStatistics();
    await dashboardStatistics(fake.client, widgets(7), { concurrency: 2 });
    expect(fake.mostInFlight()).toBe(2);
    expect(await dashboardStatistics(fake.client, [])).toEqual([]);
    expect(fake.bodies).toHaveLength(7);
  });

  test('when a widget\'s statistics are refused, then the call fails with that problem', async () => {
    const fake = fakeStatistics({ failOn: '3' });
    await expect(dashboardStatistics(fake.client, widgets(10))).rejects.toMatchObject({ status: 403 });
  });
});

describe('events: the feed as one sequence', () => {
  /** A fake feed of `total` events (ids e1…), `pageSize` a page at most; the cursor names the position. */
  function fakeFeed(total: number, options: { expireBelow?: number } = {}) {
    const calls: URL[] = [];
    let appended = total;
    const event = (n: number) => ({ id: `e${n}`, type: 'user.created', timestamp: '2026-11-29T10:00:00.000Z', workspace_id: 1, data: { user: { id: n }, actor_id: null } });
    const fetch = async (input: Request) => {
      const url = new URL(input.url);
      calls.push(url);
      const after = url.searchParams.has('after') ? Number(url.searchParams.get('after')!.replace('c1_', '')) : 0;
      if (options.expireBelow !== undefined && after < options.expireBelow) {
        return new Response(JSON.stringify({ type: 'x', title: 'Cursor expired', status: 410, detail: 'Too old.', code: 'cursor_expired' }), { status: 410, headers: { 'content-type': 'application/problem+json' } });
      }
      const limit = Number(url.searchParams.get('limit'));
      const items = Array.from({ length: Math.max(0, Math.min(limit, appended - after)) }, (_, i) => event(after + i + 1));
      return new Response(JSON.stringify({ items, next_cursor: `c1_${after + items.length}` }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const client = createTrackerClient({ baseUrl: 'http://tracker.test', token: 'trk_test', fetch });
    return { client, calls, append: (n: number) => (appended += n) };
  }

  const drain = async (feed: AsyncIterable<PublicEvent>) => {
    const ids: string[] = [];
    for await (const event of feed) ids.push(event.id);
    return ids;
  };

  test('when the feed holds more than a page, then every event comes once, in order, and it ends once a page answers the cursor it was sent', async () => {
    const { client, calls } = fakeFeed(7);
    const feed = events(client, { limit: 3 });
    expect(await drain(feed)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(calls.map((u) => u.searchParams.get('after'))).toEqual([null, 'c1_3', 'c1_6', 'c1_7']);
    expect(feed.cursor).toBe('c1_7');
  });

  test('when it is started again from the cursor kept, then only what came since comes', async () => {
    const { client, append } = fakeFeed(2);
    const first = events(client);
    expect(await drain(first)).toEqual(['e1', 'e2']);
    append(2);
    const second = events(client, { after: first.cursor, types: ['issue.*', 'comment.added'] });
    expect(await drain(second)).toEqual(['e3', 'e4']);
  });

  test('the types and the limit go in the query; the default page is the largest', async () => {
    const { client, calls } = fakeFeed(0);
    expect(await drain(events(client, { types: ['issue.*', 'comment.added'] }))).toEqual([]);
    expect(calls[0]!.searchParams.get('types')).toBe('issue.*,comment.added');
    expect(calls[0]!.searchParams.get('limit')).toBe('500');
  });

  test('when the cursor is older than the events kept, then a TrackerApiError with cursor_expired', async () => {
    const { client } = fakeFeed(5, { expireBelow: 3 });
    await expect(drain(events(client, { after: 'c1_1' }))).rejects.toMatchObject({ name: 'TrackerApiError', status: 410, problem: { code: 'cursor_expired' } });
  });

  test('when the iteration stops within a page, then the cursor is still the last whole page`s, so nothing is skipped next time', async () => {
    const { client } = fakeFeed(6);
    const feed = events(client, { limit: 3 });
    const seen: string[] = [];
    for await (const event of feed) {
      seen.push(event.id);
      if (event.id === 'e5') break;
    }
    expect(feed.cursor).toBe('c1_3');
    expect(await drain(events(client, { after: feed.cursor, limit: 3 }))).toEqual(['e4', 'e5', 'e6']);
  });
});
