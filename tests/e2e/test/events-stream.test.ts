import { PublicEvent } from '@tracker/contracts';
import { openEventStream, type OpenedEventStream } from '@tracker/testing';
import { pollUntil, seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * The live event stream end to end: writes through the gateway, their events through the
 * outbox relays and the broker into the notifications service's log, pushed back through the
 * gateway on GET /api/v1/events/stream. The gateway's upstream timeout is cut to 1.5 s here,
 * so a stream that lives longer than that proves the gateway does not hold it to a request's
 * bound. The streams take only issue, comment and worklog events: those are this file's own
 * writes, while the operator's user events may still be on their way when a stream opens.
 */
const UPSTREAM_TIMEOUT_MS = 1500;
const TYPES = 'issue.*,comment.added,worklog.added';

let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let issueKey: string;
beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
  ws = await seedWorkspace(system, 'Live');
  const queue = await api('POST', '/api/v1/queues', { key: 'LIVE', name: 'Live' });
  issueKey = (await api('POST', '/api/v1/issues', { queue_id: queue.id, title: 'Watched' })).key;
  // The issue's event in the log first: a stream opened before it is recorded would rightly show it.
  await pollUntil(
    () => api('GET', '/api/v1/events?types=issue.created'),
    (page) => page.items.some((e: { data: { issue: { key: string } } }) => e.data.issue.key === issueKey),
    20_000,
  );
}, 120_000);
afterAll(() => system?.stop());

async function api(method: string, path: string, body?: unknown) {
  const res = await system.api(method, path, { token: ws.admin.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const open = (headers: Record<string, string> = {}, query = `?types=${encodeURIComponent(TYPES)}`) =>
  openEventStream(`${system.gatewayUrl}/api/v1/events/stream${query}`, { authorization: `Bearer ${ws.admin.token}`, 'accept-encoding': 'gzip, br', ...headers });

/** The public events a stream received, each checked against the published schema. */
const received = (stream: OpenedEventStream) =>
  stream.events.map((frame) => {
    const event = PublicEvent.parse(JSON.parse(frame.data));
    expect(frame.event).toBe(event.type);
    expect(frame.id).toMatch(/^c1_[A-Za-z0-9_-]+$/);
    return event as { id: string; type: string; data: any };
  });

const comment = (body: string) => api('POST', `/api/v1/issues/${issueKey}/comments`, { body });

test('a write shows up on the stream, framed with its cursor, and the stream lives past the gateway`s upstream timeout', async () => {
  const stream = await open();
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(stream.headers.get('cache-control')).toBe('no-store');
  expect(stream.headers.get('x-accel-buffering')).toBe('no');
  expect(stream.headers.get('content-encoding')).toBeNull();
  await stream.until((s) => s.retries.length === 1, 10_000, 'retry');

  const first = await comment('Live one');
  await stream.until((s) => s.events.length >= 1, 20_000, 'the comment');
  expect(received(stream).map((e) => [e.type, e.data.comment.id])).toEqual([['comment.added', first.id]]);

  // Quiet for three times the upstream timeout: a request would have been cut by now.
  await new Promise((r) => setTimeout(r, 3 * UPSTREAM_TIMEOUT_MS));
  expect(stream.ended()).toBe(false);
  const second = await comment('Live two');
  await stream.until((s) => s.events.length >= 2, 20_000, 'the second comment');
  expect(received(stream).map((e) => [e.type, e.data.comment.id])).toEqual([
    ['comment.added', first.id],
    ['comment.added', second.id],
  ]);
  // The feed after the first event's id answers the second: the stream's ids are the feed's cursors.
  const after = await api('GET', `/api/v1/events?types=${encodeURIComponent(TYPES)}&after=${stream.events[0]!.id}`);
  expect(after.items.map((e: { data: { comment: { id: number } } }) => e.data.comment.id)).toEqual([second.id]);
  expect(after.next_cursor).toBe(stream.events[1]!.id);
  stream.close();
}, 60_000);

test('when a client disconnects, misses writes and reconnects with Last-Event-ID (or ?after), then it receives exactly the missed events', async () => {
  const stream = await open();
  await stream.until((s) => s.retries.length === 1, 10_000, 'retry');
  const seen = await comment('Seen');
  await stream.until((s) => s.events.length >= 1, 20_000, 'the comment');
  expect(received(stream).map((e) => e.data.comment.id)).toEqual([seen.id]);
  const lastId = stream.events.at(-1)!.id!;
  stream.close();

  const missed = [
    (await comment('Missed one')).id,
    (await api('POST', `/api/v1/issues/${issueKey}/worklogs`, { minutes: 5 })).id,
    (await comment('Missed two')).id,
  ];
  const resumed = await open({ 'last-event-id': lastId });
  const byQuery = await open({}, `?types=${encodeURIComponent(TYPES)}&after=${lastId}`);
  for (const s of [resumed, byQuery]) expect(s.status).toBe(200);
  // A write after the reconnection marks the end: once it is on a stream, everything before it is too.
  const marker = await comment('After reconnecting');
  for (const s of [resumed, byQuery]) {
    await s.until((x) => received(x).some((e) => e.data.comment?.id === marker.id), 30_000, 'the marker');
    const events = received(s);
    const ids = events.map((e) => `${e.type} ${e.data.comment?.id ?? e.data.worklog?.id}`);
    expect(ids.sort()).toEqual([`comment.added ${missed[0]}`, `worklog.added ${missed[1]}`, `comment.added ${missed[2]}`, `comment.added ${marker.id}`].sort());
    expect(new Set(s.events.map((e) => e.id)).size).toBe(4);
    expect(s.events.map((e) => e.id)).not.toContain(lastId);
    s.close();
  }
}, 90_000);

test('an expired or malformed Last-Event-ID is refused before any stream, as documented', async () => {
  const malformed = await open({ 'last-event-id': 'not-a-cursor' });
  expect([malformed.status, malformed.headers.get('content-type'), malformed.body.code]).toEqual([422, 'application/problem+json', 'validation_failed']);
  const anonymous = await openEventStream(`${system.gatewayUrl}/api/v1/events/stream`);
  expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
});
