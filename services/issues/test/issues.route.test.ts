import { Issue, IssueDetails } from '@tracker/contracts';
import { issueFixture } from '@tracker/testing';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

/** A workspace with one queue, a read-write member and the queue's statuses by name. */
async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  const status = Object.fromEntries(queue.statuses.map((s: { name: string; id: number }) => [s.name, s.id]));
  return { ws, queue, writer, status };
}

describe('POST /api/v1/issues', () => {
  test('when a read-write member creates an issue with only a title, then 201 with every default, in the first open status', async () => {
    const { ws, queue, writer, status } = await setup();
    const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'Disk full' } });
    expect(res.status).toBe(201);
    expect(Issue.parse(res.body)).toEqual(res.body);
    // Every field not given has its default (issueFixture starts from a new issue's fields).
    expect(res.body).toEqual(
      issueFixture({
        id: expect.any(Number),
        key: `${queue.key}-1`,
        workspace_id: ws.id,
        queue_id: queue.id,
        title: 'Disk full',
        status_id: status.Open,
        position: 1,
        created_by: writer.id,
        created_at: expect.any(String),
        updated_at: res.body.created_at,
      }),
    );
  });

  test('when every field is given, then they are stored (labels without duplicates) and read back', async () => {
    const { ws, queue, writer } = await setup();
    const assignee = h.member(ws.id);
    const parent = await h.issue(writer, queue.id, { title: 'Parent' });
    const body = {
      queue_id: queue.id,
      title: 'Child',
      description: 'Details',
      assignee_id: assignee.id,
      parent_id: parent.id,
      priority: 'critical',
      type: 'bug',
      labels: ['infra', 'urgent', 'infra'],
      due_date: '2024-02-29',
      estimate_minutes: 90,
    };
    const res = await h.call('POST', '/api/v1/issues', { as: writer, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, labels: ['infra', 'urgent'], key: `${queue.key}-2`, position: 2 });
    const read = await h.call('GET', `/api/v1/issues/${res.body.key}`, { as: writer });
    expect(read.body).toMatchObject({ ...res.body });
  });

  test('when the issue is created, then its history has one created entry and the outbox one issue.created with revision 1', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id, { title: 'Tracked', labels: ['a'] });
    const read = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    expect(read.body.history).toEqual([{ field: 'created', from: null, to: null, from_truncated: false, to_truncated: false, actor_id: writer.id, at: issue.created_at }]);
    const events = await h.outbox('issue', issue.id);
    expect(events).toEqual([expect.objectContaining({ type: 'issue.created', aggregate_revision: 1 })]);
    expect(events[0]!.payload).toMatchObject({
      workspace_id: issue.workspace_id,
      actor_id: writer.id,
      aggregate: { type: 'issue', id: String(issue.id), revision: 1 },
      data: { issue: { id: issue.id, key: issue.key, title: 'Tracked', status_category: 'open', labels: ['a'], version: 1 } },
    });
    // Everything the API answers of the issue is in the event (the public events carry it so), and the status category besides.
    const { status, ...fields } = issue;
    expect(events[0]!.payload.data.issue).toEqual({ ...fields, status_name: status.name, status_category: status.category });
  });

  test('when 50 issues are created at once in one queue, then their keys are 1 to 50 without gaps or duplicates', async () => {
    const { queue, writer } = await setup();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: `Issue ${i}` } })),
    );
    expect(replies.every((r) => r.status === 201)).toBe(true);
    const numbers = replies.map((r) => Number(r.body.key.split('-')[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const positions = new Set(replies.map((r) => r.body.position));
    expect(positions.size).toBe(50);
  });

  test('when a creation is rejected inside its transaction, then its number is not lost: the next issue has no gap', async () => {
    const { queue, writer } = await setup();
    await h.issue(writer, queue.id);
    const rejected = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'x', parent_id: 2_000_000_000 } });
    expect(rejected.status).toBe(422);
    const next = await h.issue(writer, queue.id);
    expect(next.key).toBe(`${queue.key}-2`);
  });

  test('when the queue is unknown, hidden, in another workspace or read-only for the caller, then the same 403 and nothing is created', async () => {
    const { ws, queue } = await setup();
    const other = await h.workspace();
    const foreign = await h.queue(other);
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    const stranger = h.member(ws.id);
    const before = await h.count('issues');
    const bodies = [];
    for (const [who, queueId] of [[stranger, queue.id], [ws.admin, foreign.id], [ws.admin, 2_000_000_000]] as const) {
      const res = await h.call('POST', '/api/v1/issues', { as: who, body: { queue_id: queueId, title: 'x' } });
      expect(res.status).toBe(403);
      bodies.push(JSON.stringify(res.body));
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual(problem(403, 'forbidden'));
    const readOnly = await h.call('POST', '/api/v1/issues', { as: reader, body: { queue_id: queue.id, title: 'x' } });
    expect(readOnly.status).toBe(403);
    expect(await h.count('issues')).toBe(before);
    expect(await h.count('outbox_events WHERE type = \'issue.created\' AND workspace_id IN (' + [ws.id, other.id].join(',') + ')')).toBe(0);
  });

  test('when the assignee is inactive, unknown or of another workspace, then 422 at assignee_id', async () => {
    const { ws, queue, writer } = await setup();
    const other = await h.workspace();
    const inactive = h.member(ws.id, { active: false });
    const foreign = h.member(other.id);
    for (const assignee of [inactive.id, foreign.id, 2_000_000_000]) {
      const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'x', assignee_id: assignee } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'assignee_id' })]);
    }
  });

  test('when the parent is unknown, of another workspace or in a queue the caller cannot read, then 422 at parent_id', async () => {
    const { ws, queue, writer } = await setup();
    const hiddenQueue = await h.queue(ws);
    const hiddenParent = await h.issue(ws.admin, hiddenQueue.id);
    const other = await h.workspace();
    const foreignParent = await h.issue(other.admin, (await h.queue(other)).id);
    for (const parent of [hiddenParent.id, foreignParent.id, 2_000_000_000]) {
      const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'x', parent_id: parent } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'parent_id' })]);
    }
  });

  test.each([
    ['no title', 'title', { title: undefined }],
    ['an empty title', 'title', { title: '' }],
    ['a title of 501 characters', 'title', { title: 't'.repeat(501) }],
    ['a description over 100000 characters', 'description', { description: 'd'.repeat(100_001) }],
    ['51 labels', 'labels', { labels: Array.from({ length: 51 }, (_, i) => `l${i}`) }],
    ['an empty label', 'labels.0', { labels: [''] }],
    ['a label of 101 characters', 'labels.0', { labels: ['l'.repeat(101)] }],
    ['an empty type', 'type', { type: '' }],
    ['a type of 51 characters', 'type', { type: 't'.repeat(51) }],
    ['a negative estimate', 'estimate_minutes', { estimate_minutes: -1 }],
    ['a fractional estimate', 'estimate_minutes', { estimate_minutes: 1.5 }],
    ['an estimate over 1000000', 'estimate_minutes', { estimate_minutes: 1_000_001 }],
    ['an impossible date', 'due_date', { due_date: '2023-02-29' }],
    ['a date in another format', 'due_date', { due_date: '2024/01/31' }],
    ['a date with a time', 'due_date', { due_date: '2024-01-31T00:00:00Z' }],
    ['the year 0000', 'due_date', { due_date: '0000-01-01' }],
    ['an unknown priority', 'priority', { priority: 'urgent' }],
    ['a null priority', 'priority', { priority: null }],
    ['a string queue id', 'queue_id', { queue_id: '1' }],
    ['a queue id of 0', 'queue_id', { queue_id: 0 }],
    ['a queue id beyond int4', 'queue_id', { queue_id: 2_147_483_648 }],
    ['a zero assignee', 'assignee_id', { assignee_id: 0 }],
    ['an unknown field', 'status_id', { status_id: 1 }],
  ])('when the body has %s, then 422 at %s and nothing is created', async (_label, path, fields) => {
    const { queue, writer } = await setup();
    const before = await h.count('issues');
    const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'x', ...fields } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await h.count('issues')).toBe(before);
  });

  test('when the description mentions other issues, then mentions links are recorded both ways', async () => {
    const { queue, writer } = await setup();
    const a = await h.issue(writer, queue.id, { title: 'A' });
    const b = await h.issue(writer, queue.id, { title: 'B' });
    const c = await h.issue(writer, queue.id, {
      title: 'C',
      description: `Caused by ${a.key.toLowerCase()}, see ${b.key} and ${b.key} again; NOPE-1 and XX${a.key} are not issues`,
    });
    const read = await h.call('GET', `/api/v1/issues/${c.key}`, { as: writer });
    expect(read.body.links.map((l: any) => [l.direction, l.key])).toEqual([
      ['outward', a.key],
      ['outward', b.key],
    ]);
    const readA = await h.call('GET', `/api/v1/issues/${a.key}`, { as: writer });
    expect(readA.body.links).toEqual([
      {
        id: c.id,
        key: c.key,
        queue_id: queue.id,
        title: 'C',
        status: c.status,
        assignee_id: null,
        priority: 'normal',
        type: 'mentions',
        direction: 'inward',
        linked_at: c.created_at,
      },
    ]);
  });

  test('when the access service is down and an assignee must be checked, then 503 and nothing is created', async () => {
    const { ws, queue } = await setup();
    const assignee = h.member(ws.id);
    const before = await h.count('issues');
    h.access.setDown(true);
    try {
      const res = await h.call('POST', '/api/v1/issues', { as: ws.admin, body: { queue_id: queue.id, title: 'x', assignee_id: assignee.id } });
      expect(res.status).toBe(503);
    } finally {
      h.access.setDown(false);
    }
    expect(await h.count('issues')).toBe(before);
  });
});

describe('GET /api/v1/issues/{key}', () => {
  test('when a read-only member reads an issue by its key in any case, then 200 with the issue and empty lists', async () => {
    const { ws, queue, writer } = await setup();
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    const issue = await h.issue(writer, queue.id);
    for (const key of [issue.key, issue.key.toLowerCase()]) {
      const res = await h.call('GET', `/api/v1/issues/${key}`, { as: reader });
      expect(res.status).toBe(200);
      expect(IssueDetails.parse(res.body)).toEqual(res.body);
      expect(res.body).toEqual({
        ...issue,
        comments: [],
        comments_total: 0,
        worklogs: [],
        worklogs_total: 0,
        history: [expect.objectContaining({ field: 'created' })],
        history_total: 1,
        links: [],
        links_total: 0,
        subtasks: [],
        subtasks_total: 0,
      });
    }
  });

  test('when comments, worklogs and changes were added, then each list is oldest first', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    for (const body of ['first', 'second', 'third']) {
      expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body } })).status).toBe(201);
    }
    for (const minutes of [10, 20]) {
      expect((await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes } })).status).toBe(201);
    }
    await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Renamed' } });
    await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { priority: 'high' } });
    const res = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    expect(res.body.comments.map((c: { body: string }) => c.body)).toEqual(['first', 'second', 'third']);
    expect(res.body.worklogs.map((w: { minutes: number }) => w.minutes)).toEqual([10, 20]);
    expect(res.body.history.map((e: { field: string }) => e.field)).toEqual(['created', 'title', 'priority']);
    expect(res.body.spent_minutes).toBe(30);
  });

  test('when the issue is hidden, unknown, in another workspace or the key is malformed, then the same 404', async () => {
    const { ws, queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    const stranger = h.member(ws.id);
    const other = await h.workspace();
    const foreign = await h.issue(other.admin, (await h.queue(other)).id);
    const attempts: Array<[typeof stranger, string]> = [
      [stranger, issue.key],
      [ws.admin, foreign.key],
      [ws.admin, `${queue.key}-999`],
      [ws.admin, 'NOPE-1'],
      [ws.admin, 'not-a-key'],
      [ws.admin, `${queue.key}-0`],
      [ws.admin, `${queue.key}-01`],
      [ws.admin, `${queue.key}-99999999999`],
      [ws.admin, 'search'],
    ];
    const bodies = new Set<string>();
    for (const [who, key] of attempts) {
      const res = await h.call('GET', `/api/v1/issues/${encodeURIComponent(key)}`, { as: who });
      expect(res.status).toBe(404);
      bodies.add(JSON.stringify(res.body));
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual(problem(404, 'not_found'));
  });

  test('when linked issues and subtasks sit in a queue the caller cannot read, then they are left out', async () => {
    const { ws, queue, writer } = await setup();
    const secretQueue = await h.queue(ws);
    const visible = await h.issue(writer, queue.id, { title: 'Visible' });
    const parent = await h.issue(writer, queue.id, { title: 'Parent', description: `Relates to ${visible.key}` });
    const secretChild = await h.issue(ws.admin, secretQueue.id, { title: 'Secret child', parent_id: parent.id, description: `About ${parent.key}` });
    const openChild = await h.issue(writer, queue.id, { title: 'Open child', parent_id: parent.id });

    const asWriter = await h.call('GET', `/api/v1/issues/${parent.key}`, { as: writer });
    expect(asWriter.body.subtasks.map((s: { id: number }) => s.id)).toEqual([openChild.id]);
    expect(asWriter.body.links.map((l: { id: number }) => l.id)).toEqual([visible.id]);

    const asAdmin = await h.call('GET', `/api/v1/issues/${parent.key}`, { as: ws.admin });
    expect(asAdmin.body.subtasks.map((s: { id: number }) => s.id)).toEqual([secretChild.id, openChild.id]);
    expect(asAdmin.body.links.map((l: { direction: string; id: number }) => [l.direction, l.id])).toEqual([
      ['outward', visible.id],
      ['inward', secretChild.id],
    ]);
  });
});
