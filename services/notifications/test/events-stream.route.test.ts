import http from 'node:http';
import type { EventEnvelope } from '@tracker/events';
import { PRINCIPAL_HEADER } from '@tracker/kit';
import { ticketFor, type OpenedEventStream } from '@tracker/testing';
import { events, issueState, queueState, userState } from './fixtures';
import { eventually, problem, startNotifications, type Member, type NotificationsHarness } from './harness';

/**
 * GET /api/v1/events/stream over HTTP. Events are recorded through the consumer's use case
 * straight into the log (h.record), never through this replica's consumer: what shows up on
 * a stream was found by the replica's watcher of the log, as events recorded by another
 * replica are.
 */
let h: NotificationsHarness;
beforeAll(async () => {
  h = await startNotifications();
});
afterAll(() => h.close());

const ids = (stream: OpenedEventStream) => stream.events.map((e) => JSON.parse(e.data).id as string);
const eventIds = (list: EventEnvelope[]) => list.map((e) => e.event_id);

/** The feed's cursor after everything the caller may read now. */
const feedEnd = (as: Member) => feedEndOf(h, as);

async function feedEndOf(service: NotificationsHarness, as: Member): Promise<string> {
  let cursor: string | undefined;
  for (;;) {
    const page = await service.call('GET', `/api/v1/events?limit=500${cursor ? `&after=${cursor}` : ''}`, { as });
    expect(page.status).toBe(200);
    if (page.body.next_cursor === cursor) return cursor!;
    cursor = page.body.next_cursor;
  }
}

async function world() {
  const ws = h.workspace();
  const [a, b] = [queueState(ws.id, 'AAA'), queueState(ws.id, 'BBB')];
  const reader = h.member(ws.id);
  h.grant(reader, a.id, 'read-only');
  await h.record([events.queueCreated(a), events.queueCreated(b)]);
  return { ws, a, b, reader };
}

describe('GET /api/v1/events/stream', () => {
  test('the stream answers its fixed headers, says retry first, starts from now, and frames each new event with the feed`s cursor after it as its id', async () => {
    const w = await world();
    const before = await feedEnd(w.ws.admin);
    const stream = await h.stream('/api/v1/events/stream', { as: w.ws.admin });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-store');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.headers.get('content-encoding')).toBeNull();
    await stream.until((s) => s.raw().length > 0, 10_000, 'the first frame');
    expect(stream.raw()).toBe('retry: 2000\n\n');

    const issue = events.issueCreated(issueState(w.a));
    await h.record([issue]);
    await stream.until((s) => s.events.length === 1, 10_000, 'the new event');
    // Only the new event: the two queue events recorded before the stream opened are the feed's, not the stream's.
    const page = await h.call('GET', `/api/v1/events?after=${before}`, { as: w.ws.admin });
    expect(page.body.items.map((i: { id: string }) => i.id)).toEqual([issue.event_id]);
    const json = JSON.stringify(page.body.items[0]);
    expect(stream.raw()).toBe(`retry: 2000\n\nid: ${page.body.next_cursor}\nevent: issue.created\ndata: ${json}\n\n`);
    expect(stream.events).toEqual([{ id: page.body.next_cursor, event: 'issue.created', data: json }]);
    expect(stream.retries).toEqual([2000]);
    stream.close();
  });

  test('when a client reconnects with Last-Event-ID, or with ?after, then it gets exactly the events after that id: none skipped, none repeated', async () => {
    const w = await world();
    const first = await h.stream('/api/v1/events/stream', { as: w.ws.admin });
    await first.until((s) => s.retries.length === 1, 10_000, 'retry');
    const seen = [events.issueCreated(issueState(w.a)), events.issueCreated(issueState(w.b))];
    for (const event of seen) await h.record([event]);
    await first.until((s) => s.events.length === 2, 10_000, 'two events');
    expect(ids(first)).toEqual(eventIds(seen));
    const lastId = first.events[1]!.id!;
    first.close();

    const missed = [events.commentAdded(issueState(w.a), 'one'), events.worklogAdded(issueState(w.b), 5, 'two'), events.queueUpdated({ ...w.a, name: 'Renamed' }, { name: w.a.name })];
    await h.record(missed.slice(0, 2));
    await h.record(missed.slice(2));

    const resumed = await h.stream('/api/v1/events/stream', { as: w.ws.admin, headers: { 'last-event-id': lastId } });
    const byQuery = await h.stream(`/api/v1/events/stream?after=${lastId}`, { as: w.ws.admin });
    const later = events.issueCreated(issueState(w.a));
    await h.record([later]);
    for (const stream of [resumed, byQuery]) {
      expect(stream.status).toBe(200);
      await stream.until((s) => s.events.length >= 4, 10_000, 'the missed events and the later one');
      expect(ids(stream)).toEqual(eventIds([...missed, later]));
      // The ids go on from the one given, each the cursor after its event.
      const cursors = stream.events.map((e) => e.id);
      expect(new Set([lastId, ...cursors]).size).toBe(5);
      const check = await h.call('GET', `/api/v1/events?after=${cursors[2]}`, { as: w.ws.admin });
      expect(check.body.items.map((i: { id: string }) => i.id)).toEqual([later.event_id]);
      expect(check.body.next_cursor).toBe(cursors[3]);
      stream.close();
    }
  });

  test('the types filter takes types and trailing-* patterns, as the feed`s', async () => {
    const w = await world();
    const stream = await h.stream('/api/v1/events/stream?types=issue.*,comment.added', { as: w.ws.admin });
    await stream.until((s) => s.retries.length === 1);
    const issue = issueState(w.a);
    const log = [
      events.queueUpdated({ ...w.a, name: 'X' }, { name: w.a.name }),
      events.issueCreated(issue),
      events.worklogAdded(issue, 10, 'w'),
      events.commentAdded(issue, 'c'),
      events.issueUpdated({ ...issue, title: 'T', version: 2 }, [{ field: 'title', from: issue.title, to: 'T' }]),
    ];
    for (const event of log) await h.record([event]);
    await stream.until((s) => s.events.length >= 3);
    expect(stream.events.map((e) => e.event)).toEqual(['issue.created', 'comment.added', 'issue.updated']);
    expect(ids(stream)).toEqual(eventIds([log[1]!, log[3]!, log[4]!]));
    stream.close();
  });

  test('a member gets only what they may read now: none of a queue they cannot read, and after a revoke mid-stream none of the queue`s later events', async () => {
    const w = await world();
    const stranger = h.member(w.ws.id);
    const readerStream = await h.stream('/api/v1/events/stream', { as: w.reader });
    const strangerStream = await h.stream('/api/v1/events/stream', { as: stranger });
    await readerStream.until((s) => s.retries.length === 1);
    await strangerStream.until((s) => s.retries.length === 1);
    const onA = events.issueCreated(issueState(w.a));
    const onB = events.issueCreated(issueState(w.b));
    const user = events.userCreated(w.ws.id, userState({ id: stranger.id, name: 'Stranger' }));
    await h.record([onA]);
    await h.record([onB]);
    await h.record([user]);
    await readerStream.until((s) => s.events.length >= 2);
    await strangerStream.until((s) => s.events.length >= 1);
    expect(ids(readerStream)).toEqual(eventIds([onA, user]));
    expect(ids(strangerStream)).toEqual(eventIds([user]));

    h.grant(w.reader, w.a.id, null);
    const hiddenNow = events.commentAdded(issueState(w.a), 'after the revoke');
    const marker = events.userUpdated(w.ws.id, userState({ id: stranger.id, name: 'Renamed' }), { name: 'Stranger' });
    await h.record([hiddenNow]);
    await h.record([marker]);
    // The marker comes after the hidden event in the log: once it is here, the hidden one was passed over.
    await readerStream.until((s) => s.events.length >= 3);
    expect(ids(readerStream)).toEqual(eventIds([onA, user, marker]));
    await strangerStream.until((s) => s.events.length >= 2);
    expect(ids(strangerStream)).toEqual(eventIds([user, marker]));
    readerStream.close();
    strangerStream.close();
  });

  test('a cursor before the events kept is 410 cursor_expired before any stream; a malformed one or an unknown parameter is 422 naming it', async () => {
    const w = await world();
    const queue = queueState(w.ws.id);
    await h.record([events.issueCreated(issueState(queue))]);
    const old = (await h.call('GET', '/api/v1/events?limit=1', { as: w.ws.admin })).body.next_cursor;
    await h.record([events.issueCreated(issueState(queue))]);
    // As pruning leaves it: every event up to the newest deleted, the first two here.
    await h.schema.query('INSERT INTO pruned_horizons (workspace_id, through_seq) SELECT $1, max(seq) FROM events WHERE workspace_id = $1', [w.ws.id]);
    for (const opened of [
      await h.stream('/api/v1/events/stream', { as: w.ws.admin, headers: { 'last-event-id': old } }),
      await h.stream(`/api/v1/events/stream?after=${old}`, { as: w.ws.admin }),
    ]) {
      expect([opened.status, opened.headers.get('content-type')]).toEqual([410, 'application/problem+json']);
      expect(opened.body).toEqual(problem(410, 'cursor_expired'));
    }
    for (const [path, headers, name] of [
      ['/api/v1/events/stream', { 'last-event-id': 'bogus' }, 'Last-Event-ID'],
      ['/api/v1/events/stream?after=bogus', {}, 'after'],
      ['/api/v1/events/stream?types=issue.removed', {}, 'types'],
      ['/api/v1/events/stream?limit=10', {}, 'limit'],
    ] as const) {
      const refused = await h.stream(path, { as: w.ws.admin, headers });
      expect([path, refused.status, refused.headers.get('content-type')]).toEqual([path, 422, 'application/problem+json']);
      expect(refused.body).toEqual(problem(422, 'validation_failed'));
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([name]);
    }
  });

  test('without a ticket the stream is refused (401)', async () => {
    const res = await h.call('GET', '/api/v1/events/stream');
    expect(res.status).toBe(401);
  });
});

describe('the stream`s bounds', () => {
  let short: NotificationsHarness;
  beforeAll(async () => {
    short = await startNotifications({ env: { EVENT_STREAM_MAX_SECONDS: '2', EVENT_STREAM_KEEP_ALIVE_MS: '200', EVENT_STREAMS_PER_USER: '2' } });
  });
  afterAll(() => short.close());

  test('an idle stream sends keep-alive comments, and the server ends every stream after EVENT_STREAM_MAX_SECONDS', async () => {
    const ws = short.workspace();
    const stream = await short.stream('/api/v1/events/stream', { as: ws.admin });
    await stream.until((s) => s.comments.length >= 2, 10_000, 'two keep-alives');
    expect(stream.raw()).toMatch(/^retry: 2000\n\n: keep-alive\n\n: keep-alive\n\n/);
    await stream.until((s) => s.ended(), 20_000, 'the server to end the stream');
    expect(stream.events).toEqual([]);
  });

  test('past EVENT_STREAMS_PER_USER streams a user gets 429 with Retry-After; another user is not held back; a client that leaves frees its slot', async () => {
    const ws = short.workspace();
    const other = short.member(ws.id);
    const held = [await short.stream('/api/v1/events/stream', { as: ws.admin }), await short.stream('/api/v1/events/stream', { as: ws.admin })];
    expect(held.map((s) => s.status)).toEqual([200, 200]);
    const third = await short.stream('/api/v1/events/stream', { as: ws.admin });
    expect([third.status, third.headers.get('content-type')]).toEqual([429, 'application/problem+json']);
    expect(third.body).toEqual(problem(429, 'rate_limited'));
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    const others = await short.stream('/api/v1/events/stream', { as: other });
    expect(others.status).toBe(200);
    others.close();

    held[0]!.close();
    const again = await eventually(async () => {
      const opened = await short.stream('/api/v1/events/stream', { as: ws.admin });
      expect(opened.status).toBe(200);
      return opened;
    });
    again.close();
    held[1]!.close();
  });

  test('a client that stops reading still has its stream ended after EVENT_STREAM_MAX_SECONDS, and its slot freed', async () => {
    const own = await startNotifications({ env: { EVENT_STREAM_MAX_SECONDS: '2', EVENT_STREAMS_PER_USER: '1' } });
    let stalled: http.ClientRequest | undefined;
    try {
      const w = own.workspace();
      const queue = queueState(w.id, 'BIG');
      await own.record([events.queueCreated(queue)]);
      const before = await feedEndOf(own, w.admin);
      // Far more than the sockets' buffers hold: the stream waits for the client to read, from its first page on.
      const issue = issueState(queue);
      const body = 'x'.repeat(50_000);
      for (let batch = 0; batch < 4; batch++) await own.record(Array.from({ length: 50 }, (_, n) => events.commentAdded(issue, body, { revision: issue.version + 1 + batch * 50 + n })));
      const path = `/api/v1/events/stream?after=${before}`;
      stalled = http.get(`${own.url}${path}`, { headers: { accept: 'text/event-stream', [PRINCIPAL_HEADER]: ticketFor(w.admin.principal, { audience: 'notifications', method: 'GET', path }) } });
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => stalled!.once('response', resolve).once('error', reject));
      expect(answer.statusCode).toBe(200);
      answer.pause();
      // The user's one slot is free again once the server ended the stalled stream.
      const again = await eventually(async () => {
        const opened = await own.stream('/api/v1/events/stream', { as: w.admin });
        expect(opened.status).toBe(200);
        return opened;
      }, 20_000);
      again.close();
    } finally {
      stalled?.destroy();
      await own.close();
    }
  });

  test('when the service begins to shut down, then its streams end and new ones are refused with 503, so clients reconnect to another replica', async () => {
    const own = await startNotifications();
    try {
      const ws = own.workspace();
      const stream = await own.stream('/api/v1/events/stream', { as: ws.admin });
      await stream.until((s) => s.retries.length === 1);
      own.service.endStreams();
      await stream.until((s) => s.ended(), 10_000, 'the stream to end');
      const refused = await own.stream('/api/v1/events/stream', { as: ws.admin });
      expect([refused.status, refused.body]).toEqual([503, problem(503, 'service_unavailable')]);
    } finally {
      await own.close();
    }
  });
});
