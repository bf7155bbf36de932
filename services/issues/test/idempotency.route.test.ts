import { randomUUID } from 'node:crypto';
import { problem, useIssuesService } from './harness';

/** POST under Idempotency-Key: one write per key, the first answer replayed, another request under it refused. */
const h = useIssuesService();

const keyed = (key: string) => ({ 'Idempotency-Key': key });
const json = (key: string) => ({ ...keyed(key), 'Content-Type': 'application/json' });

async function countWhere(sql: string, values: unknown[]): Promise<number> {
  return Number((await h.schema.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, values))[0]!.n);
}

describe('POST /api/v1/issues with Idempotency-Key', () => {
  test('when the same request is sent twice with one key, then one issue is written and the repeat gets the same answer, marked as replayed', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    const body = { queue_id: queue.id, title: 'Only once' };
    const first = await h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) });
    const again = await h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe('application/json');
    expect(again.body).toEqual(first.body);
    expect(await countWhere('issues WHERE queue_id = $1', [queue.id])).toBe(1);
    expect((await h.outbox('issue', first.body.id)).map((e) => e.type)).toEqual(['issue.created']);
  });

  test('when a POST carries no key, then its answer has no Idempotent-Replayed header and no key is stored', async () => {
    const { queue, writer } = await h.writableQueue();
    const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'Keyless' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await countWhere('idempotent_requests WHERE user_id = $1', [writer.id])).toBe(0);
  });

  test('when the repeat sends the same fields in another order, then it is the same request and is replayed', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    const first = await h.call('POST', '/api/v1/issues', { as: writer, raw: `{"queue_id":${queue.id},"title":"Order","priority":"high"}`, headers: json(key) });
    const again = await h.call('POST', '/api/v1/issues', { as: writer, raw: `{ "priority": "high", "title": "Order", "queue_id": ${queue.id} }`, headers: json(key) });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countWhere('issues WHERE queue_id = $1', [queue.id])).toBe(1);
  });

  test('when the key is reused with another body, then 422 idempotency_key_reused and nothing more is written', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    expect((await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'First' }, headers: keyed(key) })).status).toBe(201);
    const reused = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'Second' }, headers: keyed(key) });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual(problem(422, 'idempotency_key_reused'));
    expect(reused.body.detail).toContain('Idempotency-Key');
    expect(await countWhere('issues WHERE queue_id = $1', [queue.id])).toBe(1);
  });

  test('when the key is reused on another operation (a comment), then 422 idempotency_key_reused', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    const issue = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'T' }, headers: keyed(key) });
    const comment = await h.call('POST', `/api/v1/issues/${issue.body.key}/comments`, { as: writer, body: { body: 'x' }, headers: keyed(key) });
    expect(comment.status).toBe(422);
    expect(comment.body.code).toBe('idempotency_key_reused');
    expect(await countWhere('comments WHERE issue_id = $1', [issue.body.id])).toBe(0);
  });

  test('when another user of the workspace sends the same key, then it is their own key: a second issue', async () => {
    const { ws, queue, writer } = await h.writableQueue();
    const other = h.member(ws.id);
    h.grant(other, queue.id, 'read-write');
    const key = randomUUID();
    const body = { queue_id: queue.id, title: 'Mine' };
    const first = await h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) });
    const theirs = await h.call('POST', '/api/v1/issues', { as: other, body, headers: keyed(key) });
    expect([first.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBe('false');
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(theirs.body.created_by).toBe(other.id);
  });

  test('when a refused request is retried with the same key, then the retry is judged afresh (refusals are not stored)', async () => {
    const { ws, queue, writer } = await h.writableQueue();
    const reader = h.member(ws.id);
    h.grant(reader, queue.id, 'read-only');
    const key = randomUUID();
    const body = { queue_id: queue.id, title: 'Later' };
    expect((await h.call('POST', '/api/v1/issues', { as: reader, body, headers: keyed(key) })).status).toBe(403);
    h.grant(reader, queue.id, 'read-write');
    const retried = await h.call('POST', '/api/v1/issues', { as: reader, body, headers: keyed(key) });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('false');
    expect(await countWhere('idempotent_requests WHERE user_id = $1', [reader.id])).toBe(1);
    void writer;
  });

  test('when 10 repeats with one key arrive at once, then exactly one issue is written and all 10 answers are that issue', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    const body = { queue_id: queue.id, title: 'Racing' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(await countWhere('issues WHERE queue_id = $1', [queue.id])).toBe(1);
  });

  test('when the stored key is older than 24 hours, then a repeat writes again (the key is taken over)', async () => {
    const { queue, writer } = await h.writableQueue();
    const key = randomUUID();
    const body = { queue_id: queue.id, title: 'Old' };
    const first = await h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) });
    await h.schema.query(`UPDATE idempotent_requests SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    const later = await h.call('POST', '/api/v1/issues', { as: writer, body, headers: keyed(key) });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('false');
    expect(later.body.id).not.toBe(first.body.id);
    expect(await countWhere('idempotent_requests WHERE key = $1', [key])).toBe(1);
  });

  test.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'two words'],
    ['a non-ASCII character', 'clé'],
  ])('when the key is %s, then 422 validation_failed at Idempotency-Key and nothing is written', async (_case, key) => {
    const { queue, writer } = await h.writableQueue();
    const res = await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'x' }, headers: keyed(key) });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['Idempotency-Key']);
    expect(await countWhere('issues WHERE queue_id = $1', [queue.id])).toBe(0);
  });
});

describe('the other POSTs of the issues service under Idempotency-Key', () => {
  test('when a comment and a worklog are each sent twice with their key, then one of each is written and both repeats replay', async () => {
    const { queue, writer } = await h.writableQueue();
    const issue = await h.issue(writer, queue.id);
    const [commentKey, worklogKey] = [randomUUID(), randomUUID()];
    const comment = () => h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'Once' }, headers: keyed(commentKey) });
    const worklog = () => h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 30 }, headers: keyed(worklogKey) });
    const [c1, c2, w1, w2] = [await comment(), await comment(), await worklog(), await worklog()];
    expect([c1.status, c2.status, w1.status, w2.status]).toEqual([201, 201, 201, 201]);
    expect(c2.body).toEqual(c1.body);
    expect(w2.body).toEqual(w1.body);
    expect([c2.headers.get('idempotent-replayed'), w2.headers.get('idempotent-replayed')]).toEqual(['true', 'true']);
    expect(await countWhere('comments WHERE issue_id = $1', [issue.id])).toBe(1);
    expect(await countWhere('worklogs WHERE issue_id = $1', [issue.id])).toBe(1);
    expect((await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).body.spent_minutes).toBe(30);
  });

  test('when a queue is created twice with one key, then one queue and the same answer (no 409 for the repeat)', async () => {
    const ws = await h.workspace();
    const key = randomUUID();
    const body = { key: 'ONCE', name: 'Once' };
    const first = await h.call('POST', '/api/v1/queues', { as: ws.admin, body, headers: keyed(key) });
    const again = await h.call('POST', '/api/v1/queues', { as: ws.admin, body, headers: keyed(key) });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countWhere('queues WHERE workspace_id = $1', [ws.id])).toBe(1);
  });

  test('when a search carries a key, then it is checked (422 when invalid) and otherwise has no effect', async () => {
    const { writer } = await h.writableQueue();
    const ok = await h.call('POST', '/api/v1/issues/search', { as: writer, body: {}, headers: keyed('search-1') });
    const again = await h.call('POST', '/api/v1/issues/search', { as: writer, body: { search: 'x' }, headers: keyed('search-1') });
    const bad = await h.call('POST', '/api/v1/issues/search', { as: writer, body: {}, headers: keyed('') });
    expect([ok.status, again.status, bad.status]).toEqual([200, 200, 422]);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await countWhere('idempotent_requests WHERE user_id = $1', [writer.id])).toBe(0);
  });
});

describe('sweeping expired keys', () => {
  test('when keys are older than 24 hours, then the sweep deletes them and keeps the live ones', async () => {
    const { sweepIdempotentRequests } = await import('@tracker/kit');
    const { queue, writer } = await h.writableQueue();
    const [old, live] = [randomUUID(), randomUUID()];
    await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'a' }, headers: keyed(old) });
    await h.call('POST', '/api/v1/issues', { as: writer, body: { queue_id: queue.id, title: 'b' }, headers: keyed(live) });
    await h.schema.query(`UPDATE idempotent_requests SET created_at = now() - interval '25 hours' WHERE key = $1`, [old]);
    expect(await sweepIdempotentRequests(h.service.pool)).toBeGreaterThanOrEqual(1);
    expect(await countWhere('idempotent_requests WHERE key = ANY($1)', [[old, live]])).toBe(1);
  });
});
