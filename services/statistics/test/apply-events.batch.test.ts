import type { EventEnvelope } from '@tracker/events';
import { applyEvents } from '../src/domain/apply-event.use-case';
import type { ReplicaStore } from '../src/domain/ports';
import { WorkspaceConflictError } from '../src/domain/workspace-rule';
import { event, issueHistory, issueState, newId, queueHistory, queueState, rng } from './fixtures';
import { expectedReplica, readReplica, startStatistics, type StatisticsHarness } from './harness';

/** A batch of events applied straight through the use case, against the real replica tables. */
let h: StatisticsHarness;
beforeAll(async () => {
  h = await startStatistics();
});
afterAll(() => h.close());

/** The service's replica, counting the transactions it opens. */
function countedReplica(): { replica: ReplicaStore; transactions: () => number } {
  const replica = h.service.replica;
  let transactions = 0;
  return {
    replica: {
      ...replica,
      transaction: (work, options) => {
        transactions += 1;
        return replica.transaction(work, options);
      },
    },
    transactions: () => transactions,
  };
}

const values = (results: Awaited<ReturnType<typeof applyEvents>>) => results.map((r) => (r.ok ? r.value : r.error));
const issueRow = async (id: number) => (await h.schema.query<any>('SELECT workspace_id, queue_id, title, revision FROM issues WHERE id = $1', [id]))[0];

describe('events applied together', () => {
  test('when a batch holds several aggregates, duplicates and old revisions, then one transaction leaves the replica as one by one would', async () => {
    const r = rng(Date.now() % 100_000);
    const ws = h.workspace();
    const start = new Date('2026-04-01T00:00:00Z');
    const queues = ['BTA', 'BTB'].map((key) => queueHistory(ws.id, key, 2, start));
    const histories = Array.from({ length: 12 }, () => issueHistory(r, r.pick(queues).states[0]!.queue, [newId()], r.int(1, 6), start));
    const all = [...queues.flatMap((q) => q.events), ...histories.flatMap((i) => i.events)];
    const batch = r.shuffle([...all, ...all.filter(() => r.chance(0.3))]);
    const { replica, transactions } = countedReplica();

    const results = await applyEvents(replica, batch);

    expect(transactions()).toBe(1);
    expect(results.every((result) => result.ok)).toBe(true);
    const now = await readReplica(h.schema);
    const expected = expectedReplica(
      histories.map((i) => i.states[i.states.length - 1]!),
      queues.map((q) => q.states[q.states.length - 1]!),
    );
    const mine = {
      issues: Object.fromEntries(Object.entries(now.issues).filter(([id]) => id in expected.issues)),
      queues: Object.fromEntries(Object.entries(now.queues).filter(([id]) => id in expected.queues)),
      comments: Object.fromEntries(Object.entries(now.comments).filter(([, c]) => String(c.issueId) in expected.issues)),
    };
    expect(mine).toEqual(expected);
  });

  test('when the same state comes twice and an older one after it, then only the first of the newest is applied', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'BTO');
    const v1 = issueState(queue, { title: 'First' });
    const v2 = { ...v1, title: 'Second', version: 2 };
    const created = event('issue.created', ws.id, v1.id, 1, { issue: v1 });
    const updated = event('issue.updated', ws.id, v1.id, 2, { issue: v2, changes: [] });
    const permission = event('permission.changed', ws.id, queue.id, 1, { user_id: 1, queue_id: queue.id, role: 'read-only' });
    const { replica } = countedReplica();

    const results = await applyEvents(replica, [updated, created, updated, permission]);

    expect(values(results)).toEqual(['applied', 'stale', 'stale', 'ignored']);
    expect(await issueRow(v1.id)).toMatchObject({ title: 'Second', revision: 2 });
  });

  test('when one event of a batch is held in another workspace, then only it is refused and the others are applied', async () => {
    const [ws, other] = [h.workspace(), h.workspace()];
    const queue = queueState(ws.id, 'BTR');
    const held = issueState(queue, { title: 'Held here' });
    await h.seed({ queues: [queue], issues: [held] });
    const foreign = queueState(other.id, 'BTF');
    const moved = { ...held, workspace_id: other.id, queue_id: foreign.id, title: 'Moved away', version: 2 };
    const fine = [issueState(queue, { title: 'Fine one' }), issueState(queue, { title: 'Fine two' })];
    const batch = [
      event('issue.created', ws.id, fine[0]!.id, 1, { issue: fine[0]! }),
      event('issue.updated', other.id, held.id, 2, { issue: moved, changes: [] }),
      event('issue.created', ws.id, fine[1]!.id, 1, { issue: fine[1]! }),
    ];
    const { replica, transactions } = countedReplica();

    const results = await applyEvents(replica, batch);

    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect((results[1] as { error: unknown }).error).toBeInstanceOf(WorkspaceConflictError);
    expect(((results[1] as { error: WorkspaceConflictError }).error).conflict.rule).toBe('issue_workspace');
    // The batch, then each event alone.
    expect(transactions()).toBe(1 + batch.length);
    expect(await issueRow(held.id)).toMatchObject({ workspace_id: ws.id, title: 'Held here' });
    expect(await issueRow(fine[0]!.id)).toMatchObject({ title: 'Fine one', revision: 1 });
    expect(await issueRow(fine[1]!.id)).toMatchObject({ title: 'Fine two', revision: 1 });
  });

  test('when two events of one batch contradict each other about a row the replica does not hold, then the later one is refused as it would be alone', async () => {
    const [ws, other] = [h.workspace(), h.workspace()];
    const queue = queueState(ws.id, 'BTC');
    // An issue claiming, in another workspace, the queue the batch creates.
    const intruder = issueState({ ...queue, workspace_id: other.id }, { title: 'Intruder' });
    const batch: EventEnvelope[] = [
      event('queue.created', ws.id, queue.id, 1, { queue }),
      event('issue.created', other.id, intruder.id, 1, { issue: intruder }),
    ];

    const results = await applyEvents(h.service.replica, batch);

    expect(values(results)[0]).toBe('applied');
    expect(((results[1] as { error: WorkspaceConflictError }).error).conflict.rule).toBe('issue_queue_workspace');
    expect(await issueRow(intruder.id)).toBeUndefined();
  });

  test('when one event of a batch names another aggregate than its state, then only it fails', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'BTM');
    const [a, b] = [issueState(queue), issueState(queue)];
    const batch = [event('issue.created', ws.id, a.id, 1, { issue: a }), event('issue.created', ws.id, newId(), 1, { issue: b })];

    const results = await applyEvents(h.service.replica, batch);

    expect(values(results)[0]).toBe('applied');
    expect(String((results[1] as { error: Error }).error)).toMatch(/does not match the state's id/);
    expect(await issueRow(a.id)).toMatchObject({ revision: 1 });
    expect(await issueRow(b.id)).toBeUndefined();
  });

  test('when a batch carries only events the replica does not keep, then no transaction is opened', async () => {
    const ws = h.workspace();
    const { replica, transactions } = countedReplica();
    const queueId = newId();
    const granted = event('permission.changed', ws.id, queueId, 1, { user_id: 1, queue_id: queueId, role: 'read-only' });

    expect(values(await applyEvents(replica, [granted, granted]))).toEqual(['ignored', 'ignored']);
    expect(transactions()).toBe(0);
  });
});

describe('events applied together while the database is unavailable', () => {
  test('when the batch cannot reach the database, then every event fails at once with that error, with no attempt per event', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'BTD');
    const batch = [issueState(queue), issueState(queue), issueState(queue)].map((issue) => event('issue.created', ws.id, issue.id, 1, { issue }));
    const down = new Error('timeout exceeded when trying to connect'); // node-postgres: no pool connection in time
    let transactions = 0;
    const unreachable: ReplicaStore = {
      ...h.service.replica,
      transaction: () => {
        transactions += 1;
        return Promise.reject(down);
      },
    };

    const results = await applyEvents(unreachable, batch);

    expect(results).toEqual(batch.map(() => ({ ok: false, error: down })));
    expect(transactions).toBe(1);
  });
});
