import { EVENT_LIMITS, EventPage } from '@tracker/contracts';
import type { EventEnvelope } from '@tracker/events';
import { events, issueState, queueState, userState } from './fixtures';
import { problem, startNotifications, type Member, type NotificationsHarness } from './harness';

/** GET /api/v1/events over HTTP, the log recorded through the consumer's use case (the broker path: public-events.consumer.test.ts). */
let h: NotificationsHarness;
beforeAll(async () => {
  h = await startNotifications();
});
afterAll(() => h.close());

/** A page, checked against the published schema (equality: nothing undeclared either). */
async function feed(as: Member, query = '') {
  const res = await h.call('GET', `/api/v1/events${query}`, { as });
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json']);
  expect(EventPage.parse(res.body)).toEqual(res.body);
  return res.body as { items: Array<{ id: string; type: string; data: any }>; next_cursor: string };
}

/** Every event the caller may read, following next_cursor from the start (or `after`) until it stops moving. */
async function all(as: Member, { limit = 100, types, after }: { limit?: number; types?: string; after?: string } = {}) {
  const seen: Array<{ id: string; type: string; data: any }> = [];
  let cursor = after;
  for (let pages = 0; pages < 100; pages++) {
    const query = new URLSearchParams({ limit: String(limit), ...(types ? { types } : {}), ...(cursor ? { after: cursor } : {}) });
    const page = await feed(as, `?${query}`);
    seen.push(...page.items);
    if (page.next_cursor === cursor) return { items: seen, cursor };
    cursor = page.next_cursor;
  }
  throw new Error('the feed did not stop');
}

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

/** A workspace with two queues, an issue in each, and members: one reading queue A, one administering it, one with no grant. */
async function world() {
  const ws = h.workspace();
  const [a, b] = [queueState(ws.id, 'AAA'), queueState(ws.id, 'BBB')];
  const [issueA, issueB] = [issueState(a), issueState(b)];
  const reader = h.member(ws.id);
  const queueAdmin = h.member(ws.id);
  const stranger = h.member(ws.id);
  h.grant(reader, a.id, 'read-only');
  h.grant(queueAdmin, a.id, 'admin');
  const log: EventEnvelope[] = [
    events.queueCreated(a),
    events.queueCreated(b),
    events.issueCreated(issueA),
    events.issueCreated(issueB),
    events.commentAdded(issueA, 'on A'),
    events.worklogAdded(issueB, 15, 'on B'),
    events.permissionChanged(ws.id, { queueId: a.id, userId: reader.id, role: 'read-only', previousRole: null }),
    events.permissionChanged(ws.id, { queueId: b.id, userId: stranger.id, role: 'read-only', previousRole: null }),
    events.userCreated(ws.id, userState({ id: stranger.id, name: 'Stranger' })),
    events.issueUpdated({ ...issueA, title: 'Renamed', version: 2 }, [{ field: 'title', from: issueA.title, to: 'Renamed' }]),
  ];
  for (const event of log) await h.record([event]);
  return { ws, a, b, issueA, issueB, reader, queueAdmin, stranger, log };
}

describe('GET /api/v1/events', () => {
  test('when a workspace admin reads without a cursor, then every event of the workspace comes, oldest first, with a cursor to go on from', async () => {
    const w = await world();
    const page = await feed(w.ws.admin);
    expect(ids(page.items)).toEqual(ids(w.log.map((e) => ({ id: e.event_id }))));
    expect(page.items[0]).toEqual({ id: w.log[0]!.event_id, type: 'queue.created', timestamp: w.log[0]!.occurred_at, workspace_id: w.ws.id, data: expect.objectContaining({ queue: expect.objectContaining({ id: w.a.id }) }) });
    // Nothing new: the same cursor back, no items.
    expect(await feed(w.ws.admin, `?after=${page.next_cursor}`)).toEqual({ items: [], next_cursor: page.next_cursor });
    // One more event: only it.
    const later = events.commentAdded(w.issueB, 'later');
    await h.record([later]);
    const next = await feed(w.ws.admin, `?after=${page.next_cursor}`);
    expect(ids(next.items)).toEqual([later.event_id]);
    expect(next.next_cursor).not.toBe(page.next_cursor);
  });

  test('when the pages are followed with a small limit, then every event comes once, in order, and the last page`s cursor is where a later read starts', async () => {
    const w = await world();
    const { items, cursor } = await all(w.ws.admin, { limit: 3 });
    expect(ids(items)).toEqual(w.log.map((e) => e.event_id));
    const page = await feed(w.ws.admin, `?after=${cursor}&limit=1`);
    expect(page).toEqual({ items: [], next_cursor: cursor });
  });

  test('when a member may read one queue of two, then they see its issue, comment and queue events and every user event, and none of the other queue`s', async () => {
    const w = await world();
    const { items } = await all(w.reader);
    expect(items.map((i) => i.type)).toEqual(['queue.created', 'issue.created', 'comment.added', 'user.created', 'issue.updated']);
    expect(items.filter((i) => i.type !== 'user.created').every((i) => JSON.stringify(i.data).includes(`"queue_id":${w.a.id}`) || i.data.comment?.issue_key === w.issueA.key)).toBe(true);
  });

  test('when a member has no read on any queue, then they see none of the queues` events: only the users`', async () => {
    const w = await world();
    expect((await all(w.stranger)).items.map((i) => i.type)).toEqual(['user.created']);
  });

  test('permission changes go to the queue`s admins alone: a queue admin sees those of their queue, a reader of it none', async () => {
    const w = await world();
    expect((await all(w.queueAdmin)).items.filter((i) => i.type === 'permission.changed').map((i) => i.data.permission.queue_id)).toEqual([w.a.id]);
    expect((await all(w.reader)).items.filter((i) => i.type === 'permission.changed')).toEqual([]);
    expect((await all(w.ws.admin)).items.filter((i) => i.type === 'permission.changed').map((i) => i.data.permission.queue_id)).toEqual([w.a.id, w.b.id]);
  });

  test('when a member`s read is revoked, then the very next request shows none of that queue`s events, earlier ones included; a grant shows them all', async () => {
    const w = await world();
    expect((await all(w.reader)).items.length).toBe(5);
    h.grant(w.reader, w.a.id, null);
    expect((await all(w.reader)).items.map((i) => i.type)).toEqual(['user.created']);
    h.grant(w.reader, w.b.id, 'read-write');
    expect((await all(w.reader)).items.map((i) => i.type)).toEqual(['queue.created', 'issue.created', 'worklog.added', 'user.created']);
  });

  test('another workspace`s events are never shown, whoever asks and whatever the cursor', async () => {
    const w = await world();
    const other = await world();
    const { items } = await all(w.ws.admin, { limit: 500 });
    expect(items.every((i: any) => i.workspace_id === w.ws.id)).toBe(true);
    expect(ids(items)).not.toEqual(expect.arrayContaining([other.log[0]!.event_id]));
  });

  test('the types filter takes types and trailing-* patterns', async () => {
    const w = await world();
    expect((await all(w.ws.admin, { types: 'issue.*' })).items.map((i) => i.type)).toEqual(['issue.created', 'issue.created', 'issue.updated']);
    expect((await all(w.ws.admin, { types: 'comment.added,worklog.added' })).items.map((i) => i.type)).toEqual(['comment.added', 'worklog.added']);
    expect((await all(w.ws.admin, { types: '*' })).items).toHaveLength(w.log.length);
    expect((await all(w.ws.admin, { types: 'user.*,queue.updated' })).items.map((i) => i.type)).toEqual(['user.created']);
  });

  test('the limit bounds a page: 1 to 500, 100 when absent', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const burst = Array.from({ length: 520 }, (_, i) => events.issueCreated(issueState(queue, { title: `#${i}` })));
    for (let at = 0; at < burst.length; at += 100) await h.record(burst.slice(at, at + 100));
    expect((await feed(ws.admin)).items).toHaveLength(100);
    expect((await feed(ws.admin, '?limit=1')).items).toHaveLength(1);
    const big = await feed(ws.admin, '?limit=500');
    expect(big.items).toHaveLength(500);
    expect((await feed(ws.admin, `?limit=500&after=${big.next_cursor}`)).items).toHaveLength(20);
  });

  test('when a caller may read few of many events, then a page looks at a bounded number and its cursor still moves on', async () => {
    const small = await startNotifications({ env: { FEED_SCAN_MAX: '500' } });
    try {
      const ws = small.workspace();
      const [hidden, shown] = [queueState(ws.id), queueState(ws.id)];
      const member = small.member(ws.id);
      small.grant(member, shown.id, 'read-only');
      const many = Array.from({ length: 1200 }, () => events.issueCreated(issueState(hidden)));
      for (let at = 0; at < many.length; at += 100) await small.record(many.slice(at, at + 100));
      const mine = events.issueCreated(issueState(shown));
      await small.record([mine]);
      const first = await small.call('GET', '/api/v1/events', { as: member });
      expect(first.body.items).toEqual([]);
      let cursor = first.body.next_cursor;
      const found: string[] = [];
      for (let n = 0; n < 5 && found.length === 0; n++) {
        const page = await small.call('GET', `/api/v1/events?after=${cursor}`, { as: member });
        found.push(...page.body.items.map((i: { id: string }) => i.id));
        cursor = page.body.next_cursor;
      }
      expect(found).toEqual([mine.event_id]);
    } finally {
      await small.close();
    }
  });

  test('an event over 64 KiB is served cut to size, marked, and within the bound', async () => {
    const ws = h.workspace();
    const issue = issueState(queueState(ws.id), { description: 'ü'.repeat(100_000) });
    const created = events.issueCreated(issue);
    await h.record([created]);
    const res = await h.call('GET', '/api/v1/events', { as: ws.admin });
    expect(res.body.items).toHaveLength(1);
    expect(Buffer.byteLength(JSON.stringify(res.body.items[0]))).toBeLessThanOrEqual(EVENT_LIMITS.payloadBytes);
    expect(res.body.items[0].data.issue).toMatchObject({ id: issue.id, description_truncated: true });
  });

  test.each([
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=1&limit=2', 'limit'],
    ['?after=bogus', 'after'],
    ['?after=', 'after'],
    ['?types=issue.removed', 'types'],
    ['?types=', 'types'],
    ['?since=1', 'since'],
  ])('when the query is %s, then 422 validation_failed naming %s', async (query, path) => {
    const ws = h.workspace();
    const res = await h.call('GET', `/api/v1/events${query}`, { as: ws.admin });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problem(422, 'validation_failed'));
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  test('without a ticket the feed is refused (401); the service port is no way in', async () => {
    const res = await h.call('GET', '/api/v1/events');
    expect(res.status).toBe(401);
  });
});
