import { deadLettered } from '@tracker/events/testing';
import { again, events, issueState, queueState, userState } from './fixtures';
import { eventually, startNotifications, type NotificationsHarness } from './harness';

/** The consumer through the real broker: the service's own queue on a test exchange, its log in its own schema. */
let h: NotificationsHarness;
beforeAll(async () => {
  h = await startNotifications({ consumer: true });
});
afterAll(() => h.close());

const stored = (ids: string[]) => h.schema.query<{ id: string; type: string; payload: string }>('SELECT id, type, payload FROM events WHERE id = ANY($1::uuid[]) ORDER BY seq', [ids]);
const outcomes = (eventId: string) => h.logs.filter((l) => l.eventId === eventId).map((l) => l.outcome);
const metric = async (name: string) => (await h.service.metrics.registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#'));

describe('public events consumer', () => {
  test('when an event is delivered three times (redelivered, republished), then the log holds it once and the later copies are duplicates', async () => {
    const ws = h.workspace();
    const created = events.issueCreated(issueState(queueState(ws.id)));
    await h.publish([created, again(created)]);
    await h.handled([created.event_id], 2);
    await h.publish([again(created)]);
    await h.handled([created.event_id], 3);

    const rows = await stored([created.event_id]);
    expect(rows.map((r) => r.type)).toEqual(['issue.created']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ id: created.event_id, type: 'issue.created', workspace_id: ws.id });
    expect(outcomes(created.event_id).sort()).toEqual(['duplicate', 'duplicate', 'recorded']);
  });

  test('when a handler fails and the broker delivers again, then the event is still recorded once', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const first = events.queueCreated(queue);
    // The database refuses the first attempt (a lock wait cut short): the delivery is retried.
    const blocker = await h.service.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
    await h.publish([first]);
    await eventually(async () => expect(h.logs.some((l) => l.eventId === first.event_id && l.msg === 'event handler failed; will retry')).toBe(true), 30_000);
    await blocker.query('ROLLBACK');
    blocker.release();
    await h.handled([first.event_id]);
    expect(await stored([first.event_id])).toHaveLength(1);
  }, 60_000);

  test('when events of every kind arrive, then each is logged as its public event, and the metrics count them by type', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const issue = issueState(queue);
    const all = [
      events.queueCreated(queue),
      events.issueCreated(issue),
      events.commentAdded(issue, 'hello'),
      events.worklogAdded(issue, 30),
      events.permissionChanged(ws.id, { queueId: queue.id, userId: 99, role: 'read-only', previousRole: null }),
      events.userCreated(ws.id, userState({ id: 99 })),
    ];
    await h.publish(all);
    await h.handled(all.map((e) => e.event_id));
    const rows = await stored(all.map((e) => e.event_id));
    expect(rows.map((r) => r.type).sort()).toEqual(['comment.added', 'issue.created', 'permission.changed', 'queue.created', 'user.created', 'worklog.added']);
    expect(await metric('tracker_notifications_events_ingested_total')).toEqual(expect.arrayContaining([expect.stringMatching(/^tracker_notifications_events_ingested_total\{type="permission.changed",service="notifications"\} [1-9]/)]));
    const lag = await metric('tracker_notifications_ingest_lag_seconds');
    expect(lag.some((l) => /^tracker_notifications_ingest_lag_seconds_count\{service="notifications"\} ([6-9]|\d\d+)$/.test(l))).toBe(true);
  });

  test('when an event is older than the log keeps, or comes from a publisher too old to say what the API answers, then it is acked and not recorded', async () => {
    const ws = h.workspace();
    const old = events.issueCreated(issueState(queueState(ws.id)), { at: new Date(Date.now() - 8 * 24 * 3600_000) });
    const { status_name: _s, ...withoutStatusName } = issueState(queueState(ws.id));
    const incomplete = { ...events.issueCreated(issueState(queueState(ws.id))), data: { issue: withoutStatusName } };
    await h.publish([old, incomplete]);
    await h.handled([old.event_id, incomplete.event_id]);
    expect(await stored([old.event_id, incomplete.event_id])).toEqual([]);
    expect(outcomes(old.event_id)).toEqual(['expired']);
    expect(outcomes(incomplete.event_id)).toEqual(['incomplete']);
    expect(await metric('tracker_notifications_events_skipped_total')).toEqual(
      expect.arrayContaining([expect.stringMatching(/reason="expired".* [1-9]/), expect.stringMatching(/reason="incomplete".* [1-9]/)]),
    );
  });

  test('when a message is not a valid event or carries no publisher`s proof, then it is dead-lettered unrecorded and later events still come through', async () => {
    const ws = h.workspace();
    const forged = events.userCreated(ws.id, userState({ id: 5 }));
    const after = events.userCreated(ws.id, userState({ id: 6 }));
    await h.publish([{ routingKey: 'tracker.user.created', raw: '{"not":"an event"' }, { routingKey: 'tracker.user.created', raw: JSON.stringify(forged) }]);
    await h.publish([after]);
    await h.handled([after.event_id]);
    expect(await deadLettered(h.queue, 2)).toHaveLength(2);
    expect(await stored([forged.event_id])).toEqual([]);
    expect(await stored([after.event_id])).toHaveLength(1);
  });

  test('when a burst of events of one workspace arrives, then each is logged once, in as many positions as events, none skipped', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id);
    const burst = Array.from({ length: 150 }, (_, i) => events.issueCreated(issueState(queue, { title: `Issue ${i}` })));
    await h.publish([...burst, ...burst.slice(0, 40).map(again)]);
    await h.handled(burst.map((e) => e.event_id));
    await h.handled(burst.slice(0, 40).map((e) => e.event_id), 2);
    const rows = await h.schema.query<{ n: number; distinct: number }>('SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct FROM events WHERE workspace_id = $1', [ws.id]);
    expect(rows[0]).toEqual({ n: 150, distinct: 150 });
  });
});
