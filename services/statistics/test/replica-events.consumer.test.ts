import { deadLettered } from '@tracker/events/testing';
import { event, issueHistory, issueState, newId, queueHistory, queueState, rng, statusOf } from './fixtures';
import { eventually, expectedReplica, readReplica, startStatistics, type StatisticsHarness } from './harness';

/** The consumer through the real broker: the service's own queue on a test exchange. */
let h: StatisticsHarness;
beforeAll(async () => {
  h = await startStatistics({ consumer: true });
});
afterAll(() => h.close());

const issueRow = async (id: number) =>
  (await h.schema.query<any>('SELECT title, description, revision, spent_minutes, status_category::text AS category FROM issues WHERE id = $1', [id]))[0];
const outcomes = (eventId: string) => h.logs.filter((l) => l.msg === 'event' && l.eventId === eventId).map((l) => l.outcome);

describe('replica events consumer', () => {
  test('when the same event is delivered twice, then it is applied once and the replica holds its state', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'DUP');
    const issue = issueState(queue, { title: 'Twice delivered' });
    const created = event('issue.created', ws.id, issue.id, 1, { issue });

    await h.publish([created, created]);
    await h.handled([created.event_id], 2);

    expect(outcomes(created.event_id).sort()).toEqual(['applied', 'stale']);
    expect(await issueRow(issue.id)).toEqual({ title: 'Twice delivered', description: '', revision: 1, spent_minutes: 0, category: 'open' });
  });

  test('when an older revision arrives after a newer one, then it is ignored', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'ORD');
    const v1 = issueState(queue, { title: 'First' });
    const v2 = { ...v1, title: 'Second', version: 2 };
    const v3 = { ...v1, title: 'Third', version: 3, status_id: statusOf(queue, 'done').id, status_category: 'done' as const };
    const [e1, e2, e3] = [
      event('issue.created', ws.id, v1.id, 1, { issue: v1 }),
      event('issue.updated', ws.id, v1.id, 2, { issue: v2, changes: [] }),
      event('issue.updated', ws.id, v1.id, 3, { issue: v3, changes: [] }),
    ];

    await h.publish([e3]);
    await h.handled([e3.event_id]);
    await h.publish([e1, e2]);
    await h.handled([e1.event_id, e2.event_id]);

    expect(await issueRow(v1.id)).toMatchObject({ title: 'Third', revision: 3, category: 'done' });
    expect([...outcomes(e1.event_id), ...outcomes(e2.event_id)]).toEqual(['stale', 'stale']);
  });

  test('when a comment arrives with a stale issue state, then its text is still kept for search, once', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'COM');
    const v1 = issueState(queue);
    const v3 = { ...v1, title: 'Newest', version: 2 };
    const commentId = newId();
    const commented = event('comment.added', ws.id, v1.id, 2, {
      issue: { ...v1, updated_at: new Date().toISOString() },
      comment: { id: commentId, author_id: 1, body: 'zeppelin sighted', created_at: new Date().toISOString() },
    });
    const newest = event('issue.updated', ws.id, v1.id, 3, { issue: v3, changes: [] });

    await h.publish([newest]);
    await h.handled([newest.event_id]);
    await h.publish([commented, commented]);
    await h.handled([commented.event_id], 2);

    expect(await issueRow(v1.id)).toMatchObject({ title: 'Newest', revision: 3 });
    expect(await h.schema.query('SELECT id, issue_id, body FROM comments WHERE issue_id = $1', [v1.id])).toEqual([
      { id: commentId, issue_id: v1.id, body: 'zeppelin sighted' },
    ]);
  });

  test('when an event carries no description, then the stored one is kept', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'DSC');
    const v1 = issueState(queue, { description: 'kept text' });
    const { description: _omitted, ...withoutDescription } = { ...v1, title: 'Renamed', version: 2 };
    const e1 = event('issue.created', ws.id, v1.id, 1, { issue: v1 });
    const e2 = event('issue.updated', ws.id, v1.id, 2, { issue: withoutDescription, changes: [] });

    await h.publish([e1]);
    await h.handled([e1.event_id]);
    await h.publish([e2]);
    await h.handled([e2.event_id]);

    expect(await issueRow(v1.id)).toMatchObject({ title: 'Renamed', description: 'kept text', revision: 2 });
  });

  test('when a queue changes, then its statuses are those of the newest state', async () => {
    const ws = h.workspace();
    const q1 = queueState(ws.id, 'STS');
    const q2 = { ...q1, name: 'Renamed', statuses: q1.statuses.slice(0, 3).map((s) => ({ ...s, name: `${s.name}!` })) };
    const e1 = event('queue.created', ws.id, q1.id, 1, { queue: q1 });
    const e2 = event('queue.updated', ws.id, q1.id, 2, { queue: q2 });

    await h.publish([e2]);
    await h.handled([e2.event_id]);
    await h.publish([e1]);
    await h.handled([e1.event_id]);

    const replica = await readReplica(h.schema);
    expect(replica.queues[q1.id]).toEqual(expectedReplica([], [{ revision: 2, queue: q2 }]).queues[q1.id]);
  });

  test('when a message is not a valid event, or its handler keeps failing, then it is dead-lettered and later events still apply', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'BAD');
    const issue = issueState(queue);
    // The aggregate id does not name the issue it carries: the handler refuses it on every attempt.
    const mismatched = { ...event('issue.created', ws.id, issue.id, 1, { issue }), aggregate: { type: 'issue', id: String(issue.id + 1), revision: 1 } };
    const after = event('issue.created', ws.id, issue.id, 1, { issue });

    await h.publish([{ routingKey: 'tracker.issue.updated', raw: '{"not":"an event"' }, mismatched]);
    await eventually(async () =>
      expect(h.logs.filter((l) => l.eventId === mismatched.event_id).map((l) => l.msg)).toEqual([
        'event handler failed; will retry',
        'event handler failed; will retry',
        'event handler failed on every attempt; dead-lettered',
      ]),
    );
    await h.publish([after]);
    await h.handled([after.event_id]);

    const bodies = await deadLettered(h.queue, 2);
    expect(bodies).toContain('{"not":"an event"');
    expect(bodies.some((b) => b.includes(mismatched.event_id))).toBe(true);
    expect(h.logs.filter((l) => l.msg === 'poison message: not a valid event; dead-lettered')).toHaveLength(1);
    expect(await issueRow(issue.id)).toMatchObject({ revision: 1 });
  });

  test('when a burst of events arrives in random order with duplicates, then the replica equals the source', async () => {
    const seed = Date.now() % 100_000;
    const r = rng(seed);
    const ws = h.workspace();
    const start = new Date('2026-03-01T00:00:00Z');
    const queues = ['BRA', 'BRB', 'BRC'].map((key) => queueHistory(ws.id, key, r.int(0, 3), start));
    const assignees = [newId(), newId(), newId()];
    const histories = Array.from({ length: 60 }, () => issueHistory(r, r.pick(queues).states[0]!.queue, assignees, r.int(1, 8), start));
    const all = [...queues.flatMap((q) => q.events), ...histories.flatMap((i) => i.events)];
    const burst = r.shuffle([...all, ...all.filter(() => r.chance(0.25))]);

    await h.publish(burst);
    await h.handled(all.map((e) => e.event_id), 1, 30_000);

    const expected = expectedReplica(
      histories.map((i) => i.states[i.states.length - 1]!),
      queues.map((q) => q.states[q.states.length - 1]!),
    );
    const replica = await eventually(async () => {
      const now = await readReplica(h.schema);
      const mine = {
        issues: Object.fromEntries(Object.entries(now.issues).filter(([id]) => id in expected.issues)),
        queues: Object.fromEntries(Object.entries(now.queues).filter(([id]) => id in expected.queues)),
        comments: Object.fromEntries(Object.entries(now.comments).filter(([, c]) => String(c.issueId) in expected.issues)),
      };
      expect({ seed, ...mine }).toEqual({ seed, ...expected });
      return mine;
    });
    expect(Object.keys(replica.issues)).toHaveLength(60);
  }, 45_000);
});
