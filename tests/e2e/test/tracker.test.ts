import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * The tracker through the gateway, with real tokens: the role matrix over every
 * endpoint, grants and revokes in force for the very next request, and isolation
 * between workspaces.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let other: Awaited<ReturnType<typeof seedWorkspace>>;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
let queue: { id: number; key: string };
let issueKey: string;
/** The personal token of the other workspace's member: nobody here may revoke it. */
let foreignToken: number;

type Role = 'none' | 'read-only' | 'read-write' | 'queue-admin' | 'workspace-admin';
const ROLES: Role[] = ['none', 'read-only', 'read-write', 'queue-admin', 'workspace-admin'];

beforeAll(async () => {
  system = await startSystem();
  [ws, other] = await Promise.all([seedWorkspace(system, 'Acme'), seedWorkspace(system, 'Globex')]);
  const users = await Promise.all(
    (['none', 'read-only', 'read-write', 'queue-admin'] as const).map((name) => system.admin('user', 'add', '--workspace', String(ws.id), '--name', name)),
  );
  (['none', 'read-only', 'read-write', 'queue-admin'] as const).forEach((role, i) => {
    tokens[role] = users[i].token;
    ids[role] = users[i].user_id;
  });
  tokens['workspace-admin'] = ws.admin.token;
  ids['workspace-admin'] = ws.admin.id;

  const created = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'ops', name: 'Operations' } });
  expect(created.status).toBe(201);
  queue = { id: created.body.id, key: created.body.key };
  for (const [role, grant] of [['read-only', 'read-only'], ['read-write', 'read-write'], ['queue-admin', 'admin']] as const) {
    const res = await system.api('PUT', `/api/v1/queues/${queue.id}/permissions/${ids[role]}`, { token: ws.admin.token, body: { role: grant } });
    expect(res.status).toBe(200);
  }
  const issue = await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queue.id, title: 'Disk full on db-1' } });
  expect(issue.status).toBe(201);
  issueKey = issue.body.key;
  foreignToken = (await system.api('GET', '/api/v1/tokens', { token: other.member.token })).body[0].id;
}, 120_000);
afterAll(() => system?.stop());

const expected: Record<string, Record<Role, number>> = {
  'PATCH /queues/{id}': { none: 404, 'read-only': 403, 'read-write': 403, 'queue-admin': 200, 'workspace-admin': 200 },
  'POST /queues': { none: 403, 'read-only': 403, 'read-write': 403, 'queue-admin': 403, 'workspace-admin': 201 },
  'POST /issues': { none: 403, 'read-only': 403, 'read-write': 201, 'queue-admin': 201, 'workspace-admin': 201 },
  'GET /issues/{key}': { none: 404, 'read-only': 200, 'read-write': 200, 'queue-admin': 200, 'workspace-admin': 200 },
  'PATCH /issues/{key}': { none: 404, 'read-only': 403, 'read-write': 200, 'queue-admin': 200, 'workspace-admin': 200 },
  'POST /issues/{key}/comments': { none: 404, 'read-only': 403, 'read-write': 201, 'queue-admin': 201, 'workspace-admin': 201 },
  'POST /issues/{key}/worklogs': { none: 404, 'read-only': 403, 'read-write': 201, 'queue-admin': 201, 'workspace-admin': 201 },
  'POST /issues/search': { none: 403, 'read-only': 200, 'read-write': 200, 'queue-admin': 200, 'workspace-admin': 200 },
  'GET /queues/{id}/permissions': { none: 404, 'read-only': 403, 'read-write': 403, 'queue-admin': 200, 'workspace-admin': 200 },
  'GET /queues/{id}/permissions/history': { none: 404, 'read-only': 403, 'read-write': 403, 'queue-admin': 200, 'workspace-admin': 200 },
  'PUT /queues/{id}/permissions/{user}': { none: 404, 'read-only': 403, 'read-write': 403, 'queue-admin': 200, 'workspace-admin': 200 },
  'POST /users': { none: 403, 'read-only': 403, 'read-write': 403, 'queue-admin': 403, 'workspace-admin': 201 },
  'POST /users/{user}/setup-link': { none: 403, 'read-only': 403, 'read-write': 403, 'queue-admin': 403, 'workspace-admin': 200 },
  'GET /tokens': { none: 200, 'read-only': 200, 'read-write': 200, 'queue-admin': 200, 'workspace-admin': 200 },
  // These are personal tokens: a token is made only with a signed-in page's token (403 session_required), whatever the role.
  'POST /tokens': { none: 403, 'read-only': 403, 'read-write': 403, 'queue-admin': 403, 'workspace-admin': 403 },
  // Another user's token is hidden from everyone, a workspace admin too.
  'DELETE /tokens/{id}': { none: 404, 'read-only': 404, 'read-write': 404, 'queue-admin': 404, 'workspace-admin': 404 },
};

function call(endpoint: string, token: string) {
  const key = `R${Math.random().toString(36).slice(2, 7)}`;
  switch (endpoint) {
    case 'PATCH /queues/{id}':
      return system.api('PATCH', `/api/v1/queues/${queue.id}`, { token, body: { description: 'Runbooks live in the wiki' } });
    case 'POST /queues':
      return system.api('POST', '/api/v1/queues', { token, body: { key, name: 'Another' } });
    case 'POST /issues':
      return system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.id, title: 'From the matrix' } });
    case 'GET /issues/{key}':
      return system.api('GET', `/api/v1/issues/${issueKey}`, { token });
    case 'PATCH /issues/{key}':
      return system.api('PATCH', `/api/v1/issues/${issueKey}`, { token, body: { priority: 'high' } });
    case 'POST /issues/{key}/comments':
      return system.api('POST', `/api/v1/issues/${issueKey}/comments`, { token, body: { body: 'Looked at it' } });
    case 'POST /issues/{key}/worklogs':
      return system.api('POST', `/api/v1/issues/${issueKey}/worklogs`, { token, body: { minutes: 5 } });
    case 'POST /issues/search':
      return system.api('POST', '/api/v1/issues/search', { token, body: { queue_ids: [queue.id] } });
    case 'GET /queues/{id}/permissions':
      return system.api('GET', `/api/v1/queues/${queue.id}/permissions`, { token });
    case 'GET /queues/{id}/permissions/history':
      return system.api('GET', `/api/v1/queues/${queue.id}/permissions/history?after_id=0&limit=10`, { token });
    case 'PUT /queues/{id}/permissions/{user}':
      return system.api('PUT', `/api/v1/queues/${queue.id}/permissions/${ids['read-only']}`, { token, body: { role: 'read-only' } });
    case 'POST /users':
      return system.api('POST', '/api/v1/users', { token, body: { name: 'Invited', email: `${key}@example.com` } });
    case 'POST /users/{user}/setup-link':
      return system.api('POST', `/api/v1/users/${ids.none}/setup-link`, { token, body: { email: 'matrix-none@example.com' } });
    case 'GET /tokens':
      return system.api('GET', '/api/v1/tokens', { token });
    case 'POST /tokens':
      return system.api('POST', '/api/v1/tokens', { token, body: { name: 'From the matrix', expires_in_days: 1 } });
    case 'DELETE /tokens/{id}':
      return system.api('DELETE', `/api/v1/tokens/${foreignToken}`, { token });
    default:
      throw new Error(endpoint);
  }
}

describe('role matrix through the gateway', () => {
  const cases = Object.entries(expected).flatMap(([endpoint, byRole]) => ROLES.map((role) => [endpoint, role, byRole[role]] as const));
  test.each(cases)('%s as %s answers %i', async (endpoint, role, status) => {
    const res = await call(endpoint, tokens[role]!);
    expect(res.status).toBe(status);
    if (status >= 400) expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  test.each(ROLES)('GET /queues and /statuses as %s list the queue only with a role, with the effective role', async (role) => {
    const queues = await system.api('GET', '/api/v1/queues', { token: tokens[role] });
    expect(queues.status).toBe(200);
    const listed = queues.body.find((q: { id: number }) => q.id === queue.id);
    const statuses = await system.api('GET', '/api/v1/statuses', { token: tokens[role] });
    expect(statuses.status).toBe(200);
    const ofQueue = statuses.body.filter((s: { queue_id: number }) => s.queue_id === queue.id);
    if (role === 'none') {
      expect(listed).toBeUndefined();
      expect(ofQueue).toEqual([]);
      return;
    }
    const effective = { 'read-only': 'read-only', 'read-write': 'read-write', 'queue-admin': 'admin', 'workspace-admin': 'admin' }[role];
    expect(listed).toMatchObject({ key: 'OPS', role: effective, role_source: role === 'workspace-admin' ? 'inherited' : 'explicit' });
    expect(ofQueue.map((s: { name: string; category: string }) => [s.name, s.category])).toEqual([
      ['Open', 'open'],
      ['In progress', 'progress'],
      ['In review', 'progress'],
      ['Done', 'done'],
      ['Cancelled', 'done'],
    ]);
  });
});

describe('grants and revokes hold for the very next request', () => {
  test('when a role is granted, changed and revoked, each next request sees it', async () => {
    const newcomer = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Newcomer');
    const permission = `/api/v1/queues/${queue.id}/permissions/${newcomer.user_id}`;
    for (let round = 0; round < 3; round++) {
      expect((await system.api('GET', `/api/v1/issues/${issueKey}`, { token: newcomer.token })).status).toBe(404);
      expect((await system.api('PUT', permission, { token: ws.admin.token, body: { role: 'read-only' } })).status).toBe(200);
      expect((await system.api('GET', `/api/v1/issues/${issueKey}`, { token: newcomer.token })).status).toBe(200);
      expect((await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token: newcomer.token, body: { labels: ['x'] } })).status).toBe(403);
      expect((await system.api('PUT', permission, { token: ws.admin.token, body: { role: 'read-write' } })).status).toBe(200);
      expect((await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token: newcomer.token, body: { labels: [`r${round}`] } })).status).toBe(200);
      expect((await system.api('DELETE', permission, { token: ws.admin.token })).status).toBe(200);
      expect((await system.api('GET', `/api/v1/issues/${issueKey}`, { token: newcomer.token })).status).toBe(404);
    }
  });

  test('when a queue is created, then a role can be granted on it at once', async () => {
    const fresh = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'NEWQ', name: 'New queue' } });
    expect(fresh.status).toBe(201);
    const res = await system.api('PUT', `/api/v1/queues/${fresh.body.id}/permissions/${ids['read-only']}`, { token: ws.admin.token, body: { role: 'read-write' } });
    expect(res.status).toBe(200);
    expect((await system.api('POST', '/api/v1/issues', { token: tokens['read-only'], body: { queue_id: fresh.body.id, title: 'Granted just now' } })).status).toBe(201);
  });
});

describe('workspace isolation', () => {
  test("another workspace's admin cannot see or touch this workspace's queue and issues", async () => {
    const token = other.admin.token;
    const unknownIssue = await system.api('GET', '/api/v1/issues/NOPE-1', { token });
    const foreignIssue = await system.api('GET', `/api/v1/issues/${issueKey}`, { token });
    expect(foreignIssue.status).toBe(404);
    expect(foreignIssue.body).toEqual({ ...unknownIssue.body, detail: foreignIssue.body.detail });
    expect((await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token, body: { title: 'Hijack' } })).status).toBe(404);
    expect((await system.api('POST', `/api/v1/issues/${issueKey}/comments`, { token, body: { body: 'hi' } })).status).toBe(404);
    expect((await system.api('PATCH', `/api/v1/queues/${queue.id}`, { token, body: { name: 'Hijack' } })).status).toBe(404);
    expect((await system.api('GET', `/api/v1/queues/${queue.id}/permissions`, { token })).status).toBe(404);
    expect((await system.api('GET', `/api/v1/queues/${queue.id}/permissions/history`, { token })).status).toBe(404);
    expect((await system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.id, title: 'x' } })).status).toBe(403);
    expect((await system.api('POST', '/api/v1/issues/search', { token, body: { queue_ids: [queue.id] } })).status).toBe(403);
    const theirQueues = await system.api('GET', '/api/v1/queues', { token });
    expect(theirQueues.body.some((q: { id: number }) => q.id === queue.id)).toBe(false);
    const theirSearch = await system.api('POST', '/api/v1/issues/search', { token, body: {} });
    expect(theirSearch.body.some((i: { key: string }) => i.key === issueKey)).toBe(false);
    const mine = await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token });
    expect(mine.body.title).not.toBe('Hijack');
  });
});

describe('the README walk-through', () => {
  test('create a queue, an issue, comment, move it, and find it by search', async () => {
    const token = ws.admin.token;
    const q = await system.api('POST', '/api/v1/queues', { token, body: { key: 'web', name: 'Website' } });
    expect(q.body.key).toBe('WEB');
    const issue = await system.api('POST', '/api/v1/issues', { token, body: { queue_id: q.body.id, title: 'Login button misaligned', priority: 'high' } });
    expect(issue.body).toMatchObject({ key: 'WEB-1', version: 1, priority: 'high', status: { name: 'Open', category: 'open' } });
    const comment = await system.api('POST', '/api/v1/issues/WEB-1/comments', { token, body: { body: 'Reproduced in Firefox; see OPS-1' } });
    expect(comment.status).toBe(201);
    const inProgress = q.body.statuses.find((s: { name: string }) => s.name === 'In progress');
    const moved = await system.api('PATCH', '/api/v1/issues/web-1', { token, body: { status_id: inProgress.id, version: 1 } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ version: 2, status_id: inProgress.id });
    const stale = await system.api('PATCH', '/api/v1/issues/WEB-1', { token, body: { title: 'Again', version: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', version: 2 });
    const found = await system.api('POST', '/api/v1/issues/search', { token, body: { search: 'firefox', category: 'progress' } });
    expect(found.body.map((i: { key: string }) => i.key)).toEqual(['WEB-1']);
    const read = await system.api('GET', '/api/v1/issues/WEB-1', { token });
    expect(read.body.links).toEqual([expect.objectContaining({ key: 'OPS-1' })]);
    expect(read.body.history.map((h: { field: string }) => h.field)).toEqual(['created', 'status_id']);
  });

  test('ten concurrent PATCHes with the same version through the gateway: exactly one succeeds', async () => {
    const token = ws.admin.token;
    const issue = await system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.id, title: 'Race' } });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => system.api('PATCH', `/api/v1/issues/${issue.body.key}`, { token, body: { title: `Race ${i}`, version: 1 } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const final = await system.api('GET', `/api/v1/issues/${issue.body.key}`, { token });
    expect(final.body.version).toBe(2);
  });
});
