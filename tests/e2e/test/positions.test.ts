import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Positions under concurrency, through the gateway: a move into another status without
 * `position` and a new issue both land at the end of their status, and writers racing for
 * the same end each get their own place, in the order they committed.
 *
 * How the positions show the commit order: an end position is one past the largest
 * position committed in the status when the writer read it (READ COMMITTED sees committed
 * rows only). When N racing writers into an empty status end up at exactly 1..N, the one
 * at k + 1 read k as the largest, so the one at k had committed before that read, hence
 * before the one at k + 1 committed. A writer that read before the previous one committed
 * would have taken the same place (the defect: 20 moves got 2-4 distinct positions).
 */
let system: System;
let token: string;

beforeAll(async () => {
  system = await startSystem();
  token = (await seedWorkspace(system)).admin.token;
}, 120_000);
afterAll(() => system?.stop());

let queueSeq = 0;
async function newQueue() {
  const res = await system.api('POST', '/api/v1/queues', { token, body: { key: `POS${queueSeq++}`, name: 'Positions' } });
  expect(res.status).toBe(201);
  const status = Object.fromEntries(res.body.statuses.map((s: { name: string; id: number }) => [s.name, s.id])) as Record<string, number>;
  return { id: res.body.id as number, status };
}

async function createIssues(queueId: number, n: number) {
  const issues = [];
  for (let i = 0; i < n; i++) {
    const res = await system.api('POST', '/api/v1/issues', { token, body: { queue_id: queueId, title: `Issue ${i}` } });
    expect(res.status).toBe(201);
    issues.push(res.body);
  }
  return issues;
}

const move = (key: string, statusId: number) => system.api('PATCH', `/api/v1/issues/${key}`, { token, body: { status_id: statusId } });
const create = (queueId: number, title: string) => system.api('POST', '/api/v1/issues', { token, body: { queue_id: queueId, title } });
const byPosition = <T extends { position: number }>(issues: T[]) => [...issues].sort((a, b) => a.position - b.position);
const numberOf = (key: string) => Number(key.split('-')[1]);

/** The issues of a status as stored, in position order. */
async function stored(queueId: number, statusId: number) {
  const res = await system.api('POST', '/api/v1/issues/search', { token, body: { queue_ids: [queueId], status_ids: [statusId] } });
  expect(res.status).toBe(200);
  return byPosition(res.body as Array<{ key: string; position: number }>).map((i) => [i.key, i.position]);
}

describe('positions under concurrency', () => {
  test('when 20 issues move at once into one status without a position, then they take 1..20 in the order they committed', async () => {
    const queue = await newQueue();
    const issues = await createIssues(queue.id, 20);
    const replies = await Promise.all(issues.map((i) => move(i.key, queue.status['In progress']!)));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));

    const moved = byPosition(replies.map((r) => r.body));
    expect(moved.map((i) => i.position)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    // Each move reads the clock once it has its turn at the end of the status, so the
    // times follow the commit order as well: they never go back along the positions.
    const times = moved.map((i) => Date.parse(i.updated_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(await stored(queue.id, queue.status['In progress']!)).toEqual(moved.map((i) => [i.key, i.position]));
  });

  test('when 20 issues are created at once in one queue, then they take 1..20 in the order of their numbers', async () => {
    const queue = await newQueue();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => create(queue.id, `Issue ${i}`)));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));

    // Numbers come from the queue's counter, whose row stays locked until commit: number
    // order is commit order, and the positions must agree with it.
    const created = byPosition(replies.map((r) => r.body));
    expect(created.map((i) => i.position)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    expect(created.map((i) => numberOf(i.key))).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    expect(await stored(queue.id, queue.status.Open!)).toEqual(created.map((i) => [i.key, i.position]));
  });

  test('when issues are created while others move into the first open status, then all 20 get their own place at its end', async () => {
    const queue = await newQueue();
    const issues = await createIssues(queue.id, 10);
    // Empties Open: the creations and the moves back race for its end from 1.
    for (const issue of issues) expect((await move(issue.key, queue.status['In progress']!)).status).toBe(200);

    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => [move(issues[i]!.key, queue.status.Open!), create(queue.id, `New ${i}`)]).flat(),
    );
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => [200, 201]).flat());

    const open = byPosition(replies.map((r) => r.body));
    expect(open.every((i) => i.status_id === queue.status.Open)).toBe(true);
    expect(open.map((i) => i.position)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    const newOnes = open.filter((i) => numberOf(i.key) > 10);
    expect(newOnes.map((i) => numberOf(i.key))).toEqual(Array.from({ length: 10 }, (_, k) => k + 11));
    expect(await stored(queue.id, queue.status.Open!)).toEqual(open.map((i) => [i.key, i.position]));
  });
});
