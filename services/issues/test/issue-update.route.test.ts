import { Issue } from '@tracker/contracts';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  const status = Object.fromEntries(queue.statuses.map((s: { name: string; id: number }) => [s.name, s.id])) as Record<string, number>;
  const issue = await h.issue(writer, queue.id, { title: 'Original' });
  return { ws, queue, writer, status, issue };
}

const patch = (as: any, key: string, body: unknown) => h.call('PATCH', `/api/v1/issues/${key}`, { as, body });
const read = async (as: any, key: string) => (await h.call('GET', `/api/v1/issues/${key}`, { as })).body;

describe('PATCH /api/v1/issues/{key}', () => {
  test('when a read-write member changes the title, then 200 with version 2, one history entry and an issue.updated event', async () => {
    const { writer, issue } = await setup();
    const res = await patch(writer, issue.key, { title: 'Renamed', version: 1 });
    expect(res.status).toBe(200);
    expect(Issue.parse(res.body)).toEqual(res.body);
    expect(res.body).toEqual({ ...issue, title: 'Renamed', version: 2, updated_at: expect.any(String) });
    expect((await read(writer, issue.key)).history.slice(1)).toEqual([
      { field: 'title', from: 'Original', to: 'Renamed', from_truncated: false, to_truncated: false, actor_id: writer.id, at: res.body.updated_at },
    ]);
    const events = await h.outbox('issue', issue.id);
    expect(events.map((e) => [e.type, e.aggregate_revision])).toEqual([
      ['issue.created', 1],
      ['issue.updated', 2],
    ]);
    expect(events[1]!.payload.data).toEqual({
      issue: expect.objectContaining({ title: 'Renamed', version: 2 }),
      changes: [{ field: 'title', from: 'Original', to: 'Renamed', from_truncated: false, to_truncated: false }],
    });
  });

  test('when several fields change, then one history entry per changed field and unchanged ones are not recorded', async () => {
    const { ws, writer, issue } = await setup();
    const assignee = h.member(ws.id);
    const res = await patch(writer, issue.key, {
      title: 'Original',
      description: 'More',
      assignee_id: assignee.id,
      priority: 'high',
      type: 'bug',
      labels: ['x', 'y', 'x'],
      due_date: '2030-01-31',
      estimate_minutes: 45,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, assignee_id: assignee.id, labels: ['x', 'y'], due_date: '2030-01-31', estimate_minutes: 45 });
    const history = (await read(writer, issue.key)).history.slice(1);
    expect(history.map((e: any) => [e.field, e.from, e.to])).toEqual([
      ['description', '', 'More'],
      ['assignee_id', null, assignee.id],
      ['priority', 'normal', 'high'],
      ['type', 'task', 'bug'],
      ['labels', [], ['x', 'y']],
      ['due_date', null, '2030-01-31'],
      ['estimate_minutes', 0, 45],
    ]);
  });

  test('when null is sent for assignee_id, parent_id or due_date, then they are cleared; absent fields stay', async () => {
    const { ws, queue, writer } = await setup();
    const assignee = h.member(ws.id);
    const parent = await h.issue(writer, queue.id);
    const issue = await h.issue(writer, queue.id, { assignee_id: assignee.id, parent_id: parent.id, due_date: '2030-05-01', priority: 'low' });
    const res = await patch(writer, issue.key, { assignee_id: null, parent_id: null, due_date: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ assignee_id: null, parent_id: null, due_date: null, priority: 'low', version: 2 });
    expect((await read(writer, parent.key)).subtasks).toEqual([]);
  });

  test.each(['title', 'description', 'status_id', 'position', 'priority', 'type', 'labels', 'estimate_minutes', 'version'])(
    'when null is sent for %s, then 422 at that field and nothing changes',
    async (field) => {
      const { writer, issue } = await setup();
      const res = await patch(writer, issue.key, { [field]: null });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: field })]);
      expect(await read(writer, issue.key)).toMatchObject({ version: 1, title: 'Original' });
    },
  );

  test('when the PATCH changes nothing, then 200 with the same version, no history and no event', async () => {
    const { writer, issue, status } = await setup();
    for (const body of [{}, { title: 'Original' }, { version: 1, status_id: status.Open, priority: 'normal', labels: [], assignee_id: null }]) {
      const res = await patch(writer, issue.key, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(issue);
    }
    expect((await read(writer, issue.key)).history).toHaveLength(1);
    expect(await h.outbox('issue', issue.id)).toHaveLength(1);
  });

  test('when the version is stale, then 409 version_conflict carrying the current version, and nothing changes', async () => {
    const { writer, issue } = await setup();
    await patch(writer, issue.key, { title: 'Second' });
    for (const body of [{ version: 1, title: 'Lost update' }, { version: 1 }, { version: 99, title: 'Second' }]) {
      const res = await patch(writer, issue.key, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual(problem(409, 'version_conflict'));
      expect(res.body.version).toBe(2);
    }
    expect(await read(writer, issue.key)).toMatchObject({ title: 'Second', version: 2 });
    expect(await h.outbox('issue', issue.id)).toHaveLength(2);
  });

  test('when 20 PATCHes are sent at once with the same version, then exactly one 200 and 19 409s with the new version', async () => {
    const { writer, issue } = await setup();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => patch(writer, issue.key, { version: 1, title: `Writer ${i}` })));
    const ok = replies.filter((r) => r.status === 200);
    const conflicts = replies.filter((r) => r.status === 409);
    expect(ok).toHaveLength(1);
    expect(conflicts).toHaveLength(19);
    expect(conflicts.every((r) => r.body.code === 'version_conflict' && r.body.version === 2)).toBe(true);
    const final = await read(writer, issue.key);
    expect(final).toMatchObject({ version: 2, title: ok[0]!.body.title });
    expect(final.history).toHaveLength(2);
  });

  test('when 10 PATCHes without a version change one field at once, then all succeed and the version counts each', async () => {
    const { writer, issue } = await setup();
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(writer, issue.key, { estimate_minutes: i + 1 })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect((await read(writer, issue.key)).version).toBe(11);
    expect((await h.outbox('issue', issue.id)).map((e) => e.aggregate_revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('when 12 PATCHes move one issue between statuses at once, then all succeed, each seeing the status the one before left', async () => {
    const { writer, status, issue } = await setup();
    const targets = [status['In progress'], status['In review'], status['Done']];
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => patch(writer, issue.key, { status_id: targets[i % 3], title: `moved ${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    const final = await read(writer, issue.key);
    expect(final.version).toBe(13);
    expect(final.status.id).toBe(final.status_id);
  });

  describe('status and position', () => {
    test('when the issue moves to another status without a position, then it lands at the end of that status', async () => {
      const { queue, writer, status, issue } = await setup();
      const a = await h.issue(writer, queue.id);
      const b = await h.issue(writer, queue.id);
      await patch(writer, a.key, { status_id: status['In progress'], position: 10 });
      await patch(writer, b.key, { status_id: status['In progress'], position: 20.5 });
      const res = await patch(writer, issue.key, { status_id: status['In progress'] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status_id: status['In progress'], status: { name: 'In progress', category: 'progress' }, position: 21.5 });
      const empty = await patch(writer, issue.key, { status_id: status.Done });
      expect(empty.body).toMatchObject({ status: { id: status.Done, name: 'Done', category: 'done' }, position: 1 });
      const history = (await read(writer, issue.key)).history.map((e: any) => [e.field, e.from, e.to]);
      expect(history.slice(1)).toEqual([
        ['status_id', status.Open, status['In progress']],
        ['position', 1, 21.5],
        ['status_id', status['In progress'], status.Done],
        ['position', 21.5, 1],
      ]);
    });

    test('when an issue is created after one was placed at 20.5 in the first open status, then it lands one past it, at 21.5', async () => {
      const { queue, writer, status, issue } = await setup();
      expect((await patch(writer, issue.key, { position: 20.5 })).status).toBe(200);
      const created = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'After the placed one' } });
      expect(created).toMatchObject({ status: 201, body: { status_id: status.Open, position: 21.5 } });
      expect((await read(writer, created.body.key)).position).toBe(21.5);
    });

    test('when a position is given with or without a move, then it is stored as given', async () => {
      const { writer, status, issue } = await setup();
      expect((await patch(writer, issue.key, { position: -3.25 })).body).toMatchObject({ position: -3.25, version: 2 });
      expect((await patch(writer, issue.key, { status_id: status['In review'], position: 0.5 })).body).toMatchObject({
        status_id: status['In review'],
        position: 0.5,
        version: 3,
      });
    });

    // An end position is one past the largest committed one, so writers racing for one
    // end get 1..N only if each read after the one before it committed: positions are
    // then in commit order. Outbox rows are numbered while the writer holds its turn at
    // the end, so their order is the commit order too, and the two must agree.
    const ascending = (n: number) => Array.from({ length: n }, (_, k) => k + 1);
    /** The ids among `ids`, in the order of the last event written for each. */
    async function lastEventOrder(ids: number[]) {
      const last = new Map<number, number>();
      (await h.outbox('issue')).forEach((e, n) => last.set(Number(e.payload.aggregate.id), n));
      return ids.map((id) => [id, last.get(id)!] as const).sort((a, b) => a[1] - b[1]).map(([id]) => id);
    }

    test('when 20 issues move at once into one status without a position, then they take 1..20, in the order their events were written', async () => {
      const { queue, writer, status, issue } = await setup();
      const issues = [issue];
      for (let i = 1; i < 20; i++) issues.push(await h.issue(writer, queue.id));
      const replies = await Promise.all(issues.map((i) => patch(writer, i.key, { status_id: status['In review'], version: 1 })));
      expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
      const moved = replies.map((r) => r.body).sort((a, b) => a.position - b.position);
      expect(moved.map((i) => i.position)).toEqual(ascending(20));
      expect(await lastEventOrder(moved.map((i) => i.id))).toEqual(moved.map((i) => i.id));
    });

    test('when creations and moves race for the end of the first open status, then each gets its own place, in the order their events were written', async () => {
      const { queue, writer, status, issue } = await setup();
      const issues = [issue];
      for (let i = 1; i < 10; i++) issues.push(await h.issue(writer, queue.id));
      for (const i of issues) expect((await patch(writer, i.key, { status_id: status['In progress'] })).status).toBe(200);
      const replies = await Promise.all(
        issues.flatMap((i) => [patch(writer, i.key, { status_id: status.Open }), h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'New' } })]),
      );
      expect(replies.map((r) => r.status)).toEqual(issues.flatMap(() => [200, 201]));
      const open = replies.map((r) => r.body).sort((a, b) => a.position - b.position);
      expect(open.map((i) => [i.status_id, i.position])).toEqual(ascending(20).map((p) => [status.Open, p]));
      expect(await lastEventOrder(open.map((i) => i.id))).toEqual(open.map((i) => i.id));
    });

    test('when moves of one issue race with one version, then one lands at the end and the others are 409 without a trace', async () => {
      const { writer, status, issue } = await setup();
      const replies = await Promise.all(Array.from({ length: 10 }, () => patch(writer, issue.key, { status_id: status.Done, version: 1 })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
      expect(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'version_conflict' && r.body.version === 2)).toBe(true);
      expect(await read(writer, issue.key)).toMatchObject({ status_id: status.Done, position: 1, version: 2 });
      expect((await h.outbox('issue', issue.id)).map((e) => e.type)).toEqual(['issue.created', 'issue.updated']);
    });

    test("when the status belongs to another queue or does not exist, then 422 at status_id", async () => {
      const { ws, writer, issue } = await setup();
      const otherQueue = await h.queue(ws);
      for (const statusId of [otherQueue.statuses[1].id, 2_000_000_000]) {
        const res = await patch(writer, issue.key, { status_id: statusId });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'status_id' })]);
      }
      expect(await read(writer, issue.key)).toMatchObject({ version: 1, status_id: issue.status_id });
    });
  });

  describe('parent', () => {
    test('when a parent is set, then the issue shows among its subtasks', async () => {
      const { queue, writer, issue } = await setup();
      const parent = await h.issue(writer, queue.id, { title: 'Epic' });
      expect((await patch(writer, issue.key, { parent_id: parent.id })).body).toMatchObject({ parent_id: parent.id, version: 2 });
      expect((await read(writer, parent.key)).subtasks).toEqual([
        { id: issue.id, key: issue.key, queue_id: queue.id, title: 'Original', status: issue.status, assignee_id: null, priority: 'normal' },
      ]);
    });

    test('when the parent would be the issue itself or one of its descendants, then 422 at parent_id', async () => {
      const { queue, writer, issue: top } = await setup();
      const middle = await h.issue(writer, queue.id, { parent_id: top.id });
      const bottom = await h.issue(writer, queue.id, { parent_id: middle.id });
      for (const parentId of [top.id, middle.id, bottom.id]) {
        const res = await patch(writer, top.key, { parent_id: parentId });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'parent_id' })]);
      }
      expect(await read(writer, top.key)).toMatchObject({ parent_id: null, version: 1 });
    });

    test('when two issues are made each other’s parent at once, then only one PATCH succeeds', async () => {
      const { queue, writer, issue: a } = await setup();
      const b = await h.issue(writer, queue.id);
      const replies = await Promise.all([patch(writer, a.key, { parent_id: b.id }), patch(writer, b.key, { parent_id: a.id })]);
      expect(replies.map((r) => r.status).sort()).toEqual([200, 422]);
    });

    test('when the parent is hidden from the caller, unknown or in another workspace, then 422 at parent_id', async () => {
      const { ws, writer, issue } = await setup();
      const hidden = await h.issue(ws.admin, (await h.queue(ws)).id);
      const other = await h.workspace();
      const foreign = await h.issue(other.admin, (await h.queue(other)).id);
      for (const parentId of [hidden.id, foreign.id, 2_000_000_000]) {
        const res = await patch(writer, issue.key, { parent_id: parentId });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'parent_id' })]);
      }
    });
  });

  describe('assignee', () => {
    test('when the assignee is an active user of the workspace, then it is set; inactive, unknown or foreign users are 422', async () => {
      const { ws, writer, issue } = await setup();
      const active = h.member(ws.id);
      const inactive = h.member(ws.id, { active: false });
      const foreign = h.member((await h.workspace()).id);
      expect((await patch(writer, issue.key, { assignee_id: active.id })).body).toMatchObject({ assignee_id: active.id });
      for (const id of [inactive.id, foreign.id, 2_000_000_000]) {
        const res = await patch(writer, issue.key, { assignee_id: id });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'assignee_id' })]);
      }
      expect(await read(writer, issue.key)).toMatchObject({ assignee_id: active.id, version: 2 });
    });

    test('when the current assignee was deactivated and is sent again unchanged, then 200 and nothing changes', async () => {
      const { ws, writer, issue } = await setup();
      const assignee = h.member(ws.id);
      await patch(writer, issue.key, { assignee_id: assignee.id });
      h.access.setActive(assignee.id, false);
      const res = await patch(writer, issue.key, { assignee_id: assignee.id, version: 2 });
      expect(res).toMatchObject({ status: 200, body: { version: 2, assignee_id: assignee.id } });
    });
  });

  test('when the description gains a mention, then a link is recorded; removing the mention keeps the link', async () => {
    const { queue, writer, issue } = await setup();
    const target = await h.issue(writer, queue.id);
    await patch(writer, issue.key, { description: `Blocked by ${target.key}` });
    expect((await read(writer, issue.key)).links).toEqual([expect.objectContaining({ direction: 'outward', id: target.id })]);
    await patch(writer, issue.key, { description: 'Nothing now' });
    expect((await read(writer, issue.key)).links).toHaveLength(1);
    expect((await read(writer, target.key)).links).toEqual([expect.objectContaining({ direction: 'inward', id: issue.id })]);
  });

  test('when a read-only member patches, then 403; a member without a role or of another workspace gets 404; nothing changes', async () => {
    const { ws, queue, writer, issue } = await setup();
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    const ro = await patch(reader, issue.key, { title: 'x' });
    expect(ro).toMatchObject({ status: 403, body: problem(403, 'forbidden') });
    expect((await patch(h.member(ws.id), issue.key, { title: 'x' })).status).toBe(404);
    const other = await h.workspace();
    expect((await patch(other.admin, issue.key, { title: 'x' })).status).toBe(404);
    expect(await read(writer, issue.key)).toMatchObject({ title: 'Original', version: 1 });
    expect(await h.outbox('issue', issue.id)).toHaveLength(1);
  });

  test.each([
    ['an unknown field', 'spent_minutes', { spent_minutes: 3 }],
    ['a key', 'key', { key: 'X-1' }],
    ['a version of 0', 'version', { version: 0 }],
    ['a string position', 'position', { position: '1' }],
    ['a position beyond 1e15', 'position', { position: 1e16 }],
    ['an empty title', 'title', { title: '' }],
    ['a bad date', 'due_date', { due_date: '2024-13-01' }],
    ['an array body', '(body)', []],
    ['a string body', '(body)', 'title'],
  ])('when the body has %s, then 422 at %s', async (_label, path, body) => {
    const { writer, issue } = await setup();
    const res = await patch(writer, issue.key, body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  test('when the JSON is malformed, then 422', async () => {
    const { writer, issue } = await setup();
    const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, raw: '{"title":', headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 422, body: problem(422, 'validation_failed') });
  });
});
