import { Comment, Worklog } from '@tracker/contracts';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  const issue = await h.issue(writer, queue.id);
  return { ws, queue, writer, issue };
}

const read = async (as: any, key: string) => (await h.call('GET', `/api/v1/issues/${key}`, { as })).body;

describe('POST /api/v1/issues/{key}/comments', () => {
  test('when a read-write member comments, then 201 with the comment authored by them, and the version stays', async () => {
    const { writer, issue } = await setup();
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'Looking into it' } });
    expect(res.status).toBe(201);
    expect(Comment.parse(res.body)).toEqual(res.body);
    expect(res.body).toEqual({ id: expect.any(Number), issue_id: issue.id, author_id: writer.id, body: 'Looking into it', created_at: expect.any(String) });
    const after = await read(writer, issue.key);
    expect(after.comments).toEqual([res.body]);
    expect(after.version).toBe(1);
    expect(after.updated_at).toBe(res.body.created_at);
  });

  test('when a comment is added, then a comment.added event with the next revision is in the outbox', async () => {
    const { writer, issue } = await setup();
    await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Bumped' } });
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'x' } });
    const events = await h.outbox('issue', issue.id);
    expect(events.map((e) => [e.type, e.aggregate_revision])).toEqual([
      ['issue.created', 1],
      ['issue.updated', 2],
      ['comment.added', 3],
    ]);
    expect(events[2]!.payload.data).toEqual({
      issue: expect.objectContaining({ id: issue.id, version: 2, title: 'Bumped' }),
      comment: { id: res.body.id, author_id: writer.id, body: 'x', created_at: res.body.created_at },
    });
  });

  test('when work is logged, then worklog.added carries the worklog with its description', async () => {
    const { writer, issue } = await setup();
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 30, description: 'Review' } });
    expect(res.status).toBe(201);
    const events = await h.outbox('issue', issue.id);
    expect(events.map((e) => e.type)).toEqual(['issue.created', 'worklog.added']);
    expect(events[1]!.payload.data).toEqual({
      issue: expect.objectContaining({ id: issue.id, spent_minutes: 30 }),
      worklog: { id: res.body.id, author_id: writer.id, minutes: 30, description: 'Review', created_at: res.body.created_at },
    });
  });

  test('when a comment mentions issues, then mentions links are recorded both ways, once however often it is said', async () => {
    const { queue, writer, issue } = await setup();
    const other = await h.issue(writer, queue.id);
    for (let i = 0; i < 2; i++) {
      await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: `dup of ${other.key}, not ${issue.key}` } });
    }
    expect((await read(writer, issue.key)).links).toEqual([expect.objectContaining({ direction: 'outward', key: other.key })]);
    expect((await read(writer, other.key)).links).toEqual([expect.objectContaining({ direction: 'inward', key: issue.key })]);
  });

  test.each([
    ['an empty body', 'body', { body: '' }],
    ['a body over 50000 characters', 'body', { body: 'c'.repeat(50_001) }],
    ['no body', 'body', {}],
    ['a numeric body', 'body', { body: 5 }],
    ['an unknown field', 'author_id', { body: 'x', author_id: 1 }],
  ])('when the comment has %s, then 422 at %s and nothing is stored', async (_label, path, body) => {
    const { writer, issue } = await setup();
    const before = await h.count('comments');
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await h.count('comments')).toBe(before);
  });

  test('when a read-only member comments, then 403; without a role or from another workspace, 404; nothing is stored', async () => {
    const { ws, queue, issue } = await setup();
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    const before = await h.count('comments');
    expect(await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: reader, body: { body: 'x' } })).toMatchObject({ status: 403, body: problem(403, 'forbidden') });
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: h.member(ws.id), body: { body: 'x' } })).status).toBe(404);
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: (await h.workspace()).admin, body: { body: 'x' } })).status).toBe(404);
    expect((await h.call('POST', `/api/v1/issues/NOPE-1/comments`, { as: ws.admin, body: { body: 'x' } })).status).toBe(404);
    expect(await h.count('comments')).toBe(before);
    expect(await h.outbox('issue', issue.id)).toHaveLength(1);
  });
});

describe('POST /api/v1/issues/{key}/worklogs', () => {
  test('when a read-write member logs time, then 201, spent_minutes grows, the version stays and worklog.added is written', async () => {
    const { writer, issue } = await setup();
    const first = await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 90, description: 'Debugging' } });
    expect(first.status).toBe(201);
    expect(Worklog.parse(first.body)).toEqual(first.body);
    expect(first.body).toEqual({ id: expect.any(Number), issue_id: issue.id, author_id: writer.id, minutes: 90, description: 'Debugging', created_at: expect.any(String) });
    const second = await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 1440 } });
    expect(second.body).toMatchObject({ minutes: 1440, description: '' });
    const after = await read(writer, issue.key);
    expect(after).toMatchObject({ spent_minutes: 1530, version: 1 });
    expect(after.worklogs.map((w: { id: number }) => w.id)).toEqual([first.body.id, second.body.id]);
    const events = await h.outbox('issue', issue.id);
    expect(events.map((e) => [e.type, e.aggregate_revision])).toEqual([
      ['issue.created', 1],
      ['worklog.added', 2],
      ['worklog.added', 3],
    ]);
    expect(events[2]!.payload.data).toEqual({
      issue: expect.objectContaining({ spent_minutes: 1530, version: 1 }),
      worklog: { id: second.body.id, author_id: writer.id, minutes: 1440, description: '', created_at: second.body.created_at },
    });
  });

  test('when 20 worklogs are added at once, then spent_minutes is their exact sum and revisions are 2 to 21', async () => {
    const { writer, issue } = await setup();
    const replies = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 7 } })));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect((await read(writer, issue.key)).spent_minutes).toBe(140);
    expect((await h.outbox('issue', issue.id)).map((e) => e.aggregate_revision)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  test.each([
    ['0 minutes', 'minutes', { minutes: 0 }],
    ['1441 minutes', 'minutes', { minutes: 1441 }],
    ['fractional minutes', 'minutes', { minutes: 1.5 }],
    ['minutes as a string', 'minutes', { minutes: '30' }],
    ['no minutes', 'minutes', { description: 'x' }],
    ['a description over 10000 characters', 'description', { minutes: 5, description: 'd'.repeat(10_001) }],
    ['a null description', 'description', { minutes: 5, description: null }],
    ['an unknown field', 'author_id', { minutes: 5, author_id: 1 }],
  ])('when the worklog has %s, then 422 at %s and nothing is stored', async (_label, path, body) => {
    const { writer, issue } = await setup();
    const before = await h.count('worklogs');
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await h.count('worklogs')).toBe(before);
    expect((await read(writer, issue.key)).spent_minutes).toBe(0);
  });

  test('when a read-only member logs time, then 403; without a role, 404; nothing is stored', async () => {
    const { ws, queue, issue } = await setup();
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: reader, body: { minutes: 5 } })).status).toBe(403);
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: h.member(ws.id), body: { minutes: 5 } })).status).toBe(404);
    expect((await read(ws.admin, issue.key)).spent_minutes).toBe(0);
  });
});
