import { createTrackerClient, events } from '@tracker/client';
import { pollUntil, seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * The event feed end to end: writes through the gateway, their events through the outbox
 * relays and the broker into the notifications service's log, read back through the
 * gateway (GET /api/v1/events), every answer held to the OpenAPI document by system.api.
 * Each person sees only the events of what they may read, at every request.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system, 'Feed');
}, 120_000);
afterAll(() => system?.stop());

interface Event {
  id: string;
  type: string;
  timestamp: string;
  workspace_id: number;
  data: any;
}

const feed = async (token: string, query = '') => {
  const res = await system.api('GET', `/api/v1/events${query}`, { token });
  expect(res.status).toBe(200);
  return res.body as { items: Event[]; next_cursor: string };
};

/** Every event the token may read, following next_cursor from `after` (the start when absent) until it stops moving. */
async function readAll(token: string, options: { after?: string; limit?: number; types?: string } = {}) {
  const items: Event[] = [];
  let cursor = options.after;
  for (let pages = 0; pages < 200; pages++) {
    const query = new URLSearchParams({ limit: String(options.limit ?? 100), ...(options.types ? { types: options.types } : {}), ...(cursor ? { after: cursor } : {}) });
    const page = await feed(token, `?${query}`);
    items.push(...page.items);
    if (page.next_cursor === cursor) return { items, cursor: cursor! };
    cursor = page.next_cursor;
  }
  throw new Error('the feed did not stop');
}

/** Reads until `done` holds of what the token sees (the log follows the writes through the broker). */
const eventually = (token: string, done: (items: Event[]) => boolean, options: { after?: string; types?: string } = {}) =>
  pollUntil(() => readAll(token, options), ({ items }) => done(items), 20_000);

const api = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await system.api(method, path, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

describe('GET /api/v1/events through the gateway', () => {
  let visible: { id: number; key: string };
  let hidden: { id: number; key: string };
  let issue: { key: string; version: number };
  let hiddenIssue: { key: string };

  beforeAll(async () => {
    visible = await api('POST', '/api/v1/queues', ws.admin.token, { key: 'SEEN', name: 'Seen' });
    hidden = await api('POST', '/api/v1/queues', ws.admin.token, { key: 'HIDDEN', name: 'Hidden' });
    await api('PUT', `/api/v1/queues/${visible.id}/permissions/${ws.member.id}`, ws.admin.token, { role: 'read-write' });
    issue = await api('POST', '/api/v1/issues', ws.admin.token, { queue_id: visible.id, title: 'Visible work' });
    hiddenIssue = await api('POST', '/api/v1/issues', ws.admin.token, { queue_id: hidden.id, title: 'Secret work' });
    await api('POST', `/api/v1/issues/${issue.key}/comments`, ws.member.token, { body: 'On it' });
    await api('PATCH', `/api/v1/issues/${issue.key}`, ws.admin.token, { version: issue.version, title: 'Visible work, renamed' });
    await api('POST', `/api/v1/issues/${hiddenIssue.key}/worklogs`, ws.admin.token, { minutes: 15 });
  }, 60_000);

  test('when people write, then each write appears in the admin`s feed as its public event, oldest first, with the object as the API answers it', async () => {
    // Ten events from two publishers (access, issues), through the broker in any order.
    const { items } = await eventually(ws.admin.token, (all) => all.length >= 10);
    expect(items.every((e) => e.workspace_id === ws.id)).toBe(true);
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length);
    // The users the operator made, the queues, the grant, the issues, the comment, the rename and the worklog.
    expect(items.map((e) => e.type).sort()).toEqual(
      ['user.created', 'user.created', 'queue.created', 'queue.created', 'permission.changed', 'issue.created', 'issue.created', 'comment.added', 'issue.updated', 'worklog.added'].sort(),
    );
    const read = await api('GET', `/api/v1/issues/${issue.key}`, ws.admin.token);
    const updated = items.find((e) => e.type === 'issue.updated')!;
    const { comments: _c, comments_total: _ct, worklogs: _w, worklogs_total: _wt, history: _h, history_total: _ht, links: _l, links_total: _lt, subtasks: _s, subtasks_total: _st, ...shown } = read;
    expect(updated.data).toEqual({ issue: shown, previous: { title: 'Visible work' }, actor_id: ws.admin.id });
    expect(items.find((e) => e.type === 'comment.added')!.data).toMatchObject({ comment: { body: 'On it', author_id: ws.member.id, issue_key: issue.key }, actor_id: ws.member.id });
    expect(items.find((e) => e.type === 'permission.changed')!.data).toMatchObject({
      permission: { queue_id: visible.id, user_id: ws.member.id, role: 'read-write', explicit_role: 'read-write' },
      previous: { explicit_role: null, role: null },
    });
    // The users made by the operator's command line: no user of the workspace made them.
    expect(items.filter((e) => e.type === 'user.created').map((e) => [e.data.user.id, e.data.actor_id]).sort()).toEqual([
      [ws.admin.id, null],
      [ws.member.id, null],
    ].sort());
  });

  test('when the feed is paged by cursor, then every event comes exactly once and in the same order as in one read, and the last cursor waits for what comes next', async () => {
    const whole = await eventually(ws.admin.token, (all) => all.length >= 10);
    const paged = await readAll(ws.admin.token, { limit: 3 });
    expect(paged.items.map((e) => e.id)).toEqual(whole.items.map((e) => e.id));
    // Nothing new: the cursor comes back as it was sent.
    expect(await feed(ws.admin.token, `?after=${paged.cursor}`)).toEqual({ items: [], next_cursor: paged.cursor });
    // A write after it: the next read from that cursor holds it alone.
    await api('POST', `/api/v1/issues/${issue.key}/comments`, ws.admin.token, { body: 'Later' });
    const next = await eventually(ws.admin.token, (later) => later.length > 0, { after: paged.cursor });
    expect(next.items.map((e) => [e.type, e.data.comment?.body])).toEqual([['comment.added', 'Later']]);
  });

  test('a second person sees only what they may read: the queue they were granted, its issues and comments, and the users; neither the hidden queue nor permission changes', async () => {
    const { items } = await eventually(ws.member.token, (all) => all.length >= 7);
    // The test before added a comment (`Later`) to the issue they read.
    expect(items.map((e) => e.type).sort()).toEqual(['user.created', 'user.created', 'queue.created', 'issue.created', 'comment.added', 'comment.added', 'issue.updated'].sort());
    const text = JSON.stringify(items);
    expect(text).not.toContain(hiddenIssue.key);
    expect(text).not.toContain('HIDDEN');
    expect(items.filter((e) => e.type === 'permission.changed')).toEqual([]);
  });

  test('when the person`s grant is revoked, then the very next read hides the queue`s events, those from before too; a new grant shows them again', async () => {
    await api('DELETE', `/api/v1/queues/${visible.id}/permissions/${ws.member.id}`, ws.admin.token);
    expect((await readAll(ws.member.token)).items.map((e) => e.type)).toEqual(['user.created', 'user.created']);
    await api('PUT', `/api/v1/queues/${visible.id}/permissions/${ws.member.id}`, ws.admin.token, { role: 'read-only' });
    expect((await readAll(ws.member.token)).items.some((e) => e.data.issue?.key === issue.key)).toBe(true);
  });

  test('the types filter takes trailing-* patterns, and a type that names nothing is 422', async () => {
    const { items } = await readAll(ws.admin.token, { types: 'queue.*,comment.added' });
    expect(new Set(items.map((e) => e.type))).toEqual(new Set(['queue.created', 'comment.added']));
    const bad = await system.api('GET', '/api/v1/events?types=issue.deleted', { token: ws.admin.token });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'types' }] });
    const forged = await system.api('GET', '/api/v1/events?after=not-a-cursor', { token: ws.admin.token });
    expect(forged.status).toBe(422);
  });

  test('another workspace`s admin sees none of these events, whatever cursor they send', async () => {
    const other = await seedWorkspace(system, 'Elsewhere');
    const mine = await readAll(ws.admin.token);
    const theirs = await readAll(other.admin.token);
    expect(theirs.items.every((e) => e.workspace_id === other.id)).toBe(true);
    expect((await feed(other.admin.token, `?after=c1_MA`)).items.every((e) => e.workspace_id === other.id)).toBe(true);
    expect(theirs.items.map((e) => e.id)).not.toEqual(expect.arrayContaining([mine.items[0]!.id]));
  });

  test('the typed client`s iterator reads the feed to the present and keeps the cursor to go on from', async () => {
    const client = createTrackerClient({ baseUrl: system.gatewayUrl, token: ws.admin.token });
    const iterated = events(client, { limit: 4 });
    const ids: string[] = [];
    for await (const event of iterated) ids.push(event.id);
    // What one read answers (it may hold more, should an event have come meanwhile).
    expect((await readAll(ws.admin.token)).items.map((e) => e.id).slice(0, ids.length)).toEqual(ids);
    expect(ids.length).toBeGreaterThanOrEqual(10);
    await api('PATCH', `/api/v1/queues/${visible.id}`, ws.admin.token, { name: 'Seen, renamed' });
    const renamed = await pollUntil(
      async () => {
        const found: Array<{ type: string; data: any }> = [];
        for await (const event of events(client, { after: iterated.cursor, types: ['queue.*'] })) found.push(event);
        return found;
      },
      (found) => found.length > 0,
    );
    expect(renamed.map((e) => [e.type, e.data.queue.name, e.data.previous])).toEqual([['queue.updated', 'Seen, renamed', { name: 'Seen' }]]);
  });
});
