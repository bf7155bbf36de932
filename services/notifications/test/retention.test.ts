import { pruneEvents } from '../src/domain/prune-events.use-case';
import { events, issueState, queueState } from './fixtures';
import { eventually, problem, startNotifications, type Member, type NotificationsHarness } from './harness';

/** Events are kept EVENT_RETENTION_HOURS (7 days by default) and then deleted; a cursor before them is 410. The service's clock is moved, not the database's. */
let h: NotificationsHarness;
let ahead = 0;
beforeAll(async () => {
  h = await startNotifications({ clock: () => new Date(Date.now() + ahead), env: { EVENT_PRUNE_INTERVAL_MS: '100' } });
});
afterAll(() => h.close());
afterEach(() => {
  ahead = 0;
});

const DAY = 24 * 3600_000;
const feed = (as: Member, query = '') => h.call('GET', `/api/v1/events${query}`, { as });
const prune = async () => (await pruneEvents({ log: h.service.deps.log, deliveries: h.service.deps.deliveries, clock: h.service.deps.clock, retention: h.service.deps.retention })).events;

describe('retention', () => {
  test('events younger than 7 days are kept; older ones are deleted, the rest of the log stays whole', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const [old, almost, fresh] = [events.issueCreated(issueState(queue)), events.issueCreated(issueState(queue)), events.issueCreated(issueState(queue))];
    await h.record([old, almost, fresh]);
    const recordedAgo = (event: { event_id: string }, ms: number) =>
      h.schema.query(`UPDATE events SET recorded_at = now() - make_interval(secs => $2) WHERE id = $1`, [event.event_id, ms / 1000]);
    await recordedAgo(old, 7.01 * DAY);
    await recordedAgo(almost, 6.99 * DAY);
    expect(await prune()).toBe(1);
    expect((await feed(ws.admin)).body.items.map((i: { id: string }) => i.id)).toEqual([almost.event_id, fresh.event_id]);
  });

  test('a cursor before deleted events is 410 cursor_expired; one at or after them goes on; no cursor starts at the oldest event kept', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    await h.record([events.issueCreated(issueState(queue))]);
    const start = (await feed(ws.admin)).body;
    const second = events.issueCreated(issueState(queue));
    await h.record([second]);
    const afterSecond = (await feed(ws.admin, `?after=${start.next_cursor}`)).body.next_cursor;
    // Eight days on, both are deleted and a third arrives.
    ahead = 8 * DAY;
    await prune();
    const third = events.issueCreated(issueState(queue), { at: new Date(Date.now() + ahead) });
    await h.record([third]);

    const expired = await feed(ws.admin, `?after=${start.next_cursor}`);
    expect(expired.status).toBe(410);
    expect(expired.headers.get('content-type')).toBe('application/problem+json');
    expect(expired.body).toEqual(problem(410, 'cursor_expired'));
    // Whoever had read up to the newest deleted event lost nothing.
    expect((await feed(ws.admin, `?after=${afterSecond}`)).body.items.map((i: { id: string }) => i.id)).toEqual([third.event_id]);
    const fromStart = (await feed(ws.admin)).body;
    expect(fromStart.items.map((i: { id: string }) => i.id)).toEqual([third.event_id]);
    expect((await feed(ws.admin, `?after=${fromStart.next_cursor}`)).status).toBe(200);
  });

  test('a workspace whose log was emptied starts its cursor past the deleted events, so it never expires for what it did not miss', async () => {
    const ws = h.workspace();
    await h.record([events.issueCreated(issueState(queueState(ws.id)))]);
    ahead = 8 * DAY;
    await prune();
    const empty = (await feed(ws.admin)).body;
    expect(empty.items).toEqual([]);
    ahead = 16 * DAY;
    await prune();
    expect((await feed(ws.admin, `?after=${empty.next_cursor}`)).status).toBe(200);
  });

  test('another workspace`s deleted events expire no cursor of this one', async () => {
    const [mine, theirs] = [h.workspace(), h.workspace()];
    await h.record([events.issueCreated(issueState(queueState(mine.id)))]);
    const cursor = (await feed(mine.admin)).body.next_cursor;
    const fresh = events.issueCreated(issueState(queueState(theirs.id)));
    await h.record([fresh]);
    ahead = 8 * DAY;
    // Both are deleted: this workspace's horizon moves to its own event, not to the other's later one.
    await prune();
    expect((await feed(mine.admin, `?after=${cursor}`)).status).toBe(200);
  });

  test('the service prunes by itself every EVENT_PRUNE_INTERVAL_MS', async () => {
    const ws = h.workspace();
    await h.record([events.issueCreated(issueState(queueState(ws.id)))]);
    const pruning = h.service.keepPruned();
    try {
      ahead = 8 * DAY;
      await eventually(async () => expect((await feed(ws.admin)).body.items).toEqual([]));
    } finally {
      await pruning.stop();
    }
  });
});

describe('positions in a workspace are handed out in commit order', () => {
  test('when many batches are recorded at once while a reader follows the feed, then the reader sees every event exactly once, in order', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const batches = Array.from({ length: 12 }, () => Array.from({ length: 15 }, () => events.issueCreated(issueState(queue))));
    const seen: string[] = [];
    let cursor: string | undefined;
    let writing = true;
    const reader = (async () => {
      for (;;) {
        const done = !writing;
        const page = (await feed(ws.admin, cursor ? `?after=${cursor}&limit=7` : '?limit=7')).body;
        seen.push(...page.items.map((i: { id: string }) => i.id));
        const moved = page.next_cursor !== cursor;
        cursor = page.next_cursor;
        if (done && !moved) return;
      }
    })();
    await Promise.all(batches.map((batch) => h.record(batch)));
    writing = false;
    await reader;
    const all = batches.flat().map((e) => e.event_id);
    expect(seen).toHaveLength(all.length);
    expect(new Set(seen)).toEqual(new Set(all));
  });
});
