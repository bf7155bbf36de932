import { randomBytes } from 'node:crypto';
import { connectAgent, problemOf, seedWorkspace, type AgentClient, type System } from '@tracker/system-tests-support';

/** Every tool of the agent tool interface, one per REST operation. */
export const TOOL_NAMES = [
  'get_me', 'list_queues', 'create_queue', 'update_queue', 'list_statuses', 'list_users', 'update_user', 'invite_user', 'issue_setup_link',
  'search_issues', 'get_issue', 'list_comments', 'list_worklogs', 'list_history', 'list_links', 'list_subtasks',
  'create_issue', 'update_issue', 'add_comment', 'add_worklog', 'get_statistics',
  'list_dashboards', 'get_dashboard_statistics', 'create_dashboard', 'replace_dashboard', 'get_queue_permissions', 'list_queue_permission_history',
  'set_queue_permission', 'revoke_queue_permission', 'list_events',
].sort();

/**
 * A fetch that sends consecutive requests to the given gateways in turn, so one agent's
 * session spreads over every replica (no affinity of any kind).
 */
export function alternating(gatewayUrls: string[]): typeof fetch & { sent: Record<string, number> } {
  let next = 0;
  const sent: Record<string, number> = Object.fromEntries(gatewayUrls.map((u) => [u, 0]));
  const rotate = ((input: string | URL | Request, init?: RequestInit) => {
    const base = gatewayUrls[next++ % gatewayUrls.length]!;
    sent[base]! += 1;
    const url = new URL(input instanceof Request ? input.url : String(input));
    return fetch(new URL(url.pathname + url.search, base), init);
  }) as typeof fetch & { sent: typeof sent };
  rotate.sent = sent;
  return rotate;
}

export async function call(client: AgentClient, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return { result, data: result.structuredContent as any, problem: problemOf(result as never) };
}

/**
 * An agent's whole working day through /mcp with the official SDK client: every tool
 * succeeds once for an admin, a stale version is 409 with the current version, and
 * invalid arguments are refused without changing anything.
 */
export async function agentWalk(system: System, options: { fetch?: typeof fetch } = {}) {
  const ws = await seedWorkspace(system);
  const admin = await connectAgent(system.gatewayUrl, ws.admin.token, options);
  try {
    expect(admin.getServerVersion()).toMatchObject({ name: 'tracker' });
    expect(admin.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await admin.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);

    const me = await call(admin, 'get_me');
    expect(me.data).toMatchObject({ id: ws.admin.id, workspace_id: ws.id, role: 'admin' });

    const key = `W${randomBytes(3).toString('hex').toUpperCase()}`;
    const queue = await call(admin, 'create_queue', { key, name: 'Walk' });
    expect(queue.data).toMatchObject({ key, name: 'Walk', role: 'admin' });
    expect((await call(admin, 'update_queue', { queue_id: queue.data.id, description: 'walked' })).data.description).toBe('walked');
    expect((await call(admin, 'list_queues')).data.items.map((q: any) => q.id)).toContain(queue.data.id);
    const statuses = (await call(admin, 'list_statuses')).data.items.filter((s: any) => s.queue_id === queue.data.id);
    expect(statuses.map((s: any) => s.name)).toEqual(['Open', 'In progress', 'In review', 'Done', 'Cancelled']);
    expect((await call(admin, 'list_users')).data.items.map((u: any) => u.id)).toEqual([ws.admin.id, ws.member.id]);

    const created = await call(admin, 'create_issue', { queue_id: queue.data.id, title: 'Walk the dog', labels: ['home'] });
    expect(created.data).toMatchObject({ key: `${key}-1`, version: 1, created_by: ws.admin.id, status: { name: 'Open' } });
    const issueKey: string = created.data.key;
    const moved = await call(admin, 'update_issue', { key: issueKey, version: 1, status_id: statuses[1].id, assignee_id: ws.member.id });
    expect(moved.data).toMatchObject({ version: 2, status_id: statuses[1].id, assignee_id: ws.member.id });
    const comment = await call(admin, 'add_comment', { key: issueKey, body: 'On my way' });
    expect(comment.data).toMatchObject({ author_id: ws.admin.id, body: 'On my way' });
    expect((await call(admin, 'add_worklog', { key: issueKey, minutes: 30 })).data).toMatchObject({ author_id: ws.admin.id, minutes: 30 });

    const read = await call(admin, 'get_issue', { key: issueKey.toLowerCase() });
    expect(read.data).toMatchObject({ key: issueKey, version: 2, spent_minutes: 30, comments: [{ body: 'On my way' }], comments_total: 1 });
    // The lists get_issue embeds the newest of, a page at a time.
    expect((await call(admin, 'list_comments', { key: issueKey, limit: 1 })).data).toEqual({ items: read.data.comments, total: 1, next_after_id: null });
    expect((await call(admin, 'list_worklogs', { key: issueKey })).data).toMatchObject({ items: [{ minutes: 30 }], total: 1 });
    expect((await call(admin, 'list_history', { key: issueKey, after_id: 0 })).data.items).toEqual(read.data.history);
    expect((await call(admin, 'list_links', { key: issueKey })).data).toEqual({ items: [], total: 0, next_after_id: null });
    expect((await call(admin, 'list_subtasks', { key: issueKey })).data).toEqual({ items: [], total: 0, next_after_id: null });
    expect((await call(admin, 'list_comments', { key: issueKey, limit: 51 })).problem).toMatchObject({ status: 422, code: 'validation_failed' });

    // A stale version: refused with the current one, nothing changed.
    const stale = await call(admin, 'update_issue', { key: issueKey, version: 1, title: 'Lost update' });
    expect(stale.result.isError).toBe(true);
    expect(stale.problem).toMatchObject({ status: 409, code: 'version_conflict', version: 2 });
    // Invalid arguments: refused as 422 with each field listed, nothing changed.
    const invalid = await call(admin, 'update_issue', { key: issueKey, version: 2, title: '', colour: 'red' });
    expect(invalid.problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(invalid.problem!.errors.map((e: any) => e.path).sort()).toEqual(['colour', 'title']);
    const after = await call(admin, 'get_issue', { key: issueKey });
    expect(after.data).toMatchObject({ version: 2, title: 'Walk the dog' });
    expect(after.data.history.map((h: any) => h.field)).not.toContain('title');

    const found = await call(admin, 'search_issues', { queue_ids: [queue.data.id], limit: 1 });
    expect(found.data).toEqual({ items: [expect.objectContaining({ key: issueKey })], total: 1, truncated: false });

    const stats = await call(admin, 'get_statistics', { mine: true });
    expect(stats.problem).toBeNull();
    expect(stats.data).toMatchObject({ truncated: false, progress: expect.any(Object) });

    const dashboard = await call(admin, 'create_dashboard', { name: 'Walks', widgets: [{ type: 'stats', filters: { queue_ids: [queue.data.id] } }] });
    expect(dashboard.data).toMatchObject({ owner_id: ws.admin.id, name: 'Walks' });
    expect((await call(admin, 'replace_dashboard', { dashboard_id: dashboard.data.id, name: 'Walks 2', widgets: [] })).data).toMatchObject({ name: 'Walks 2', widgets: [] });
    expect((await call(admin, 'list_dashboards')).data.items.map((d: any) => d.id)).toContain(dashboard.data.id);
    const drawn = await call(admin, 'get_dashboard_statistics', { dashboard_id: dashboard.data.id });
    expect(drawn.data).toEqual({ dashboard_id: dashboard.data.id, widgets: [] });

    const granted = await call(admin, 'set_queue_permission', { queue_id: queue.data.id, user_id: ws.member.id, role: 'read-write' });
    expect(granted.data).toMatchObject({ user_id: ws.member.id, role: 'read-write', role_source: 'explicit' });
    const permissions = await call(admin, 'get_queue_permissions', { queue_id: queue.data.id });
    expect(permissions.data.history).toEqual([expect.objectContaining({ user_id: ws.member.id, from: null, to: 'read-write', actor_id: ws.admin.id })]);
    expect(permissions.data.history_total).toBe(1);
    // The changes get_queue_permissions embeds the newest of, a page at a time.
    expect((await call(admin, 'list_queue_permission_history', { queue_id: queue.data.id, limit: 1 })).data).toEqual({ items: permissions.data.history, total: 1, next_after_id: null });
    expect((await call(admin, 'list_queue_permission_history', { queue_id: queue.data.id, after_id: -1 })).problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect((await call(admin, 'revoke_queue_permission', { queue_id: queue.data.id, user_id: ws.member.id })).data).toMatchObject({ role: null });
    expect((await call(admin, 'update_user', { user_id: ws.member.id, name: 'Robert' })).data).toMatchObject({ id: ws.member.id, name: 'Robert' });

    // A colleague invited, then a new link for them: each answers a one-time setup link, the newer voiding the older.
    const email = `walk-${randomBytes(3).toString('hex')}@example.com`;
    const invited = await call(admin, 'invite_user', { name: 'Grace', email });
    expect(invited.data).toMatchObject({ name: 'Grace', email, role: 'member', active: true, setup_url: expect.stringMatching(/\/setup#code=[\w-]{43}$/) });
    const link = await call(admin, 'issue_setup_link', { user_id: invited.data.id });
    expect(link.data).toEqual({ setup_url: expect.stringMatching(/\/setup#code=[\w-]{43}$/) });
    expect(link.data.setup_url).not.toBe(invited.data.setup_url);
    expect((await call(admin, 'invite_user', { name: 'Grace again', email: email.toUpperCase() })).problem).toMatchObject({ status: 409, code: 'email_taken' });

    // What changed: the walk's own queue among the events (the log follows the writes by a few milliseconds).
    const deadline = Date.now() + 15_000;
    let events = await call(admin, 'list_events', { types: 'queue.*', limit: 500 });
    while (!events.data?.items?.some((e: any) => e.type === 'queue.created' && e.data.queue.id === queue.data.id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = await call(admin, 'list_events', { types: 'queue.*', limit: 500 });
    }
    expect(events.data.items.find((e: any) => e.type === 'queue.created' && e.data.queue.id === queue.data.id)).toMatchObject({ workspace_id: ws.id, data: { queue: { key }, actor_id: ws.admin.id } });
    expect(events.data.next_cursor).toEqual(expect.any(String));
    expect((await call(admin, 'list_events', { types: 'issue.deleted' })).problem).toMatchObject({ status: 422, code: 'validation_failed' });
    return { ws, issueKey, queueId: queue.data.id as number };
  } finally {
    await admin.close();
  }
}
