import { createTrackerClient, events, updateIssueSafely, type TrackerClient } from '@tracker/client';
import { checkDocumentedAnswer, pollUntil, seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * The typed client (libs/client, generated from the published document) against the
 * running system: every operation called through it, every answer checked against the
 * document, and the safe update helper racing itself.
 */
let system: System;
let admin: TrackerClient;
let member: TrackerClient;
let memberId: number;
const checked: string[] = [];

/** Checks every answer the client receives against the OpenAPI document. */
const documented = {
  async onResponse({ request, response }: { request: Request; response: Response }) {
    const text = await response.clone().text();
    const body = text ? JSON.parse(text) : undefined;
    const url = new URL(request.url);
    const problem = checkDocumentedAnswer(request.method, url.pathname + url.search, response.status, response.headers.get('content-type'), body);
    if (problem) throw new Error(`undocumented answer: ${JSON.stringify(problem)}`);
    checked.push(`${request.method} ${response.status}`);
    return undefined;
  },
};

beforeAll(async () => {
  system = await startSystem();
  const ws = await seedWorkspace(system);
  admin = createTrackerClient({ baseUrl: system.gatewayUrl, token: ws.admin.token, middleware: [documented] });
  member = createTrackerClient({ baseUrl: system.gatewayUrl, token: ws.member.token, middleware: [documented] });
  memberId = ws.member.id;
}, 60_000);
afterAll(() => system?.stop());

test('every operation of the document works through the typed client', async () => {
  const spec = await admin.GET('/api/v1/openapi.json');
  expect(spec.data).toMatchObject({ info: { version: '1.0.0' } });

  const me = await admin.GET('/api/v1/me');
  expect(me.data).toMatchObject({ role: 'admin' });
  expect((await admin.GET('/api/v1/users')).data!.map((u) => u.id)).toContain(memberId);

  const queue = (await admin.POST('/api/v1/queues', { body: { key: 'cli', name: 'Client' } })).data!;
  expect(queue.key).toBe('CLI');
  expect((await admin.PATCH('/api/v1/queues/{queue_id}', { params: { path: { queue_id: queue.id } }, body: { description: 'Made by the client' } })).data).toMatchObject({ description: 'Made by the client' });
  expect((await admin.GET('/api/v1/queues')).data!.map((q) => q.id)).toContain(queue.id);
  const statuses = (await admin.GET('/api/v1/statuses')).data!;
  expect(statuses.filter((s) => s.queue_id === queue.id).map((s) => s.name)).toEqual(['Open', 'In progress', 'In review', 'Done', 'Cancelled']);

  const granted = await admin.PUT('/api/v1/queues/{queue_id}/permissions/{user_id}', { params: { path: { queue_id: queue.id, user_id: memberId } }, body: { role: 'read-write' } });
  expect(granted.data).toMatchObject({ role: 'read-write' });
  const permissions = (await admin.GET('/api/v1/queues/{queue_id}/permissions', { params: { path: { queue_id: queue.id } } })).data!;
  expect(permissions.members.map((m) => m.user_id)).toContain(memberId);
  expect([permissions.history.length, permissions.history_total]).toEqual([1, 1]);
  const history = await admin.GET('/api/v1/queues/{queue_id}/permissions/history', { params: { path: { queue_id: queue.id }, query: { after_id: 0, limit: 1 } } });
  expect(history.data).toEqual({ items: permissions.history, total: 1, next_after_id: null });

  const issue = (await member.POST('/api/v1/issues', { body: { queue_id: queue.id, title: 'Typed', labels: ['client'] } })).data!;
  expect(issue).toMatchObject({ key: 'CLI-1', version: 1 });
  expect((await member.POST('/api/v1/issues/{key}/comments', { params: { path: { key: issue.key } }, body: { body: 'Hello' } })).response.status).toBe(201);
  expect((await member.POST('/api/v1/issues/{key}/worklogs', { params: { path: { key: issue.key } }, body: { minutes: 30 } })).response.status).toBe(201);
  const done = statuses.find((s) => s.queue_id === queue.id && s.name === 'Done')!;
  expect((await member.PATCH('/api/v1/issues/{key}', { params: { path: { key: issue.key } }, body: { status_id: done.id, version: 1 } })).data).toMatchObject({ version: 2 });
  const stale = await member.PATCH('/api/v1/issues/{key}', { params: { path: { key: issue.key } }, body: { title: 'Stale', version: 1 } });
  expect(stale.error).toMatchObject({ code: 'version_conflict', version: 2 });
  const read = (await member.GET('/api/v1/issues/{key}', { params: { path: { key: issue.key } } })).data!;
  expect([read.comments.length, read.worklogs.length, read.version]).toEqual([1, 1, 2]);
  expect((await member.POST('/api/v1/issues/search', { body: { search: 'typed', queue_ids: [queue.id] } })).data!.map((i) => i.key)).toEqual(['CLI-1']);

  const board = (await member.POST('/api/v1/dashboards', { body: { name: 'Mine', widgets: [{ type: 'stats', filters: { queue_ids: [queue.id] } }] } })).data!;
  expect((await member.PUT('/api/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: board.id } }, body: { name: 'Renamed', widgets: [] } })).data).toMatchObject({ name: 'Renamed' });
  expect((await member.GET('/api/v1/dashboards')).data!.map((d) => d.id)).toContain(board.id);
  expect((await member.GET('/api/v1/dashboards/{dashboard_id}/statistics', { params: { path: { dashboard_id: board.id } } })).data).toEqual({ dashboard_id: board.id, widgets: [] });
  // The replica follows events: statistics catch up with the issue made above.
  const stats = await pollUntil(
    () => member.POST('/api/v1/statistics', { body: { queue_ids: [queue.id] } }),
    (answer) => answer.data?.total === 1,
  );
  expect(stats.data?.total).toBe(1);
  // The event log follows events too: the feed, read through the client's iterator, shows the issue made above.
  const created = await pollUntil(
    async () => {
      const found: string[] = [];
      for await (const event of events(member, { types: ['issue.*'] })) if (event.type === 'issue.created') found.push(event.data.issue.key);
      return found;
    },
    (keys) => keys.includes(issue.key),
  );
  expect(created).toContain(issue.key);

  const revoked = await admin.DELETE('/api/v1/queues/{queue_id}/permissions/{user_id}', { params: { path: { queue_id: queue.id, user_id: memberId } } });
  expect(revoked.response.status).toBe(200);
  expect((await member.GET('/api/v1/issues/{key}', { params: { path: { key: issue.key } } })).error).toMatchObject({ code: 'not_found' });
  expect((await admin.PATCH('/api/v1/users/{user_id}', { params: { path: { user_id: memberId } }, body: { name: 'Renamed member' } })).data).toMatchObject({ name: 'Renamed member' });

  // Every answer above was checked against the document by the middleware.
  expect(checked.length).toBeGreaterThanOrEqual(24);
});

test('twenty safe updates racing on one issue: each lands once, none lost', async () => {
  const queue = (await admin.POST('/api/v1/queues', { body: { key: 'RACE', name: 'Race' } })).data!;
  const issue = (await admin.POST('/api/v1/issues', { body: { queue_id: queue.id, title: 'Contended' } })).data!;
  const marks = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const results = await Promise.all(
    marks.map((mark) =>
      updateIssueSafely(admin, issue.key, (current) => ({ labels: [...current.labels, mark], estimate_minutes: current.estimate_minutes + 1 }), { maxAttempts: 50 }),
    ),
  );
  expect(results).toHaveLength(20);
  const final = (await admin.GET('/api/v1/issues/{key}', { params: { path: { key: issue.key } } })).data!;
  expect(final.version).toBe(21);
  expect(final.estimate_minutes).toBe(20);
  expect([...final.labels].sort()).toEqual([...marks].sort());
}, 60_000);
