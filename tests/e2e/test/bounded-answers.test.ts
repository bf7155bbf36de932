import { ISSUE_LIMITS, ISSUE_READ_LIMITS } from '@tracker/contracts';
import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Through the gateway, every service a process, every answer checked against the
 * published OpenAPI document: a read-write user piling comments and long description
 * edits onto one issue cannot grow its read past the documented bound; the rest is paged;
 * search rows carry a cut description; statistics still find text in the long
 * descriptions and comments (the replica gets them through events); a queue admin
 * changing roles without end cannot grow the permissions read either.
 */
let system: System;
let admin: string;
let writer: string;
let writerId: number;
let queueId: number;

beforeAll(async () => {
  system = await startSystem();
  const ws = await seedWorkspace(system);
  admin = ws.admin.token;
  writer = ws.member.token;
  writerId = ws.member.id;
  const queue = await system.api('POST', '/api/v1/queues', { token: admin, body: { key: 'BOUND', name: 'Bounded' } });
  queueId = queue.body.id;
  const grant = await system.api('PUT', `/api/v1/queues/${queueId}/permissions/${ws.member.id}`, { token: admin, body: { role: 'read-write' } });
  expect(grant.status).toBe(200);
}, 120_000);
afterAll(() => system?.stop());

/** 3.7 MB: the largest read of plain text (services/issues/test/answer-bounds.test.ts). */
const PLAIN_READ_BOUND = 3_714_421;

test('when one user adds 60 comments of 50,000 characters and 10 description edits of 100,000, then the read stays within the bound and the lists page through the rest', async () => {
  const created = await system.api('POST', '/api/v1/issues', { token: writer, body: { queue_id: queueId, title: 'Grown', description: 'zebra '.repeat(10) } });
  expect(created.status).toBe(201);
  const key = created.body.key as string;
  for (let n = 0; n < 60; n++) {
    const res = await system.api('POST', `/api/v1/issues/${key}/comments`, { token: writer, body: { body: `${n === 59 ? 'okapi ' : ''}${'c'.repeat(ISSUE_LIMITS.comment - 6)}` } });
    expect(res.status).toBe(201);
  }
  for (let n = 0; n < 10; n++) {
    const res = await system.api('PATCH', `/api/v1/issues/${key}`, { token: writer, body: { description: `${'zebra '.repeat(16_000)}${n}`.padEnd(ISSUE_LIMITS.description, 'z') } });
    expect(res.status).toBe(200);
  }

  const read = await system.api('GET', `/api/v1/issues/${key}`, { token: writer });
  expect(read.status).toBe(200);
  expect(Buffer.byteLength(JSON.stringify(read.body))).toBeLessThanOrEqual(PLAIN_READ_BOUND);
  expect([read.body.comments.length, read.body.comments_total, read.body.history.length, read.body.history_total]).toEqual([ISSUE_READ_LIMITS.embedded, 60, 11, 11]);
  for (const entry of read.body.history.slice(1)) expect([entry.from.length, entry.to.length, entry.to_truncated]).toEqual([entry.from_truncated ? 1000 : 60, 1000, true]);

  const pages = [];
  for (let after = 0; ; ) {
    const page = await system.api('GET', `/api/v1/issues/${key}/comments?after_id=${after}&limit=20`, { token: writer });
    expect(page.status).toBe(200);
    pages.push(page.body);
    if (page.body.next_after_id === null) break;
    after = page.body.next_after_id;
  }
  expect(pages.map((p) => p.items.length)).toEqual([20, 20, 20]);
  expect(pages.flatMap((p) => p.items).slice(10)).toEqual(read.body.comments);
  expect((await system.api('GET', `/api/v1/issues/${key}/comments?limit=51`, { token: writer })).status).toBe(422);

  const found = await system.api('POST', '/api/v1/issues/search', { token: writer, body: { queue_ids: [queueId] } });
  expect(found.status).toBe(200);
  expect(found.body).toEqual([expect.objectContaining({ key, description_truncated: true })]);
  expect(found.body[0].description).toHaveLength(ISSUE_READ_LIMITS.searchDescription);

  // Statistics find the words of the long description and of the last comment (events carry them whole).
  for (const search of ['zebra', 'okapi']) {
    const deadline = Date.now() + 15_000;
    let total = 0;
    while (Date.now() < deadline) {
      const stats = await system.api('POST', '/api/v1/statistics', { token: writer, body: { queue_ids: [queueId], search } });
      total = stats.status === 200 ? stats.body.total : 0;
      if (total === 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect([search, total]).toEqual([search, 1]);
  }
}, 120_000);

test('when a queue admin changes a role 60 more times, then the permissions read carries the newest 50 changes and the total, and the history pages through all of them', async () => {
  // Alternating roles, so each PUT records a change: with the grant above, 61 in all, ending read-write.
  for (let n = 0; n < 60; n++) {
    const res = await system.api('PUT', `/api/v1/queues/${queueId}/permissions/${writerId}`, { token: admin, body: { role: n % 2 ? 'read-write' : 'read-only' } });
    expect(res.status).toBe(200);
  }
  const read = await system.api('GET', `/api/v1/queues/${queueId}/permissions`, { token: admin });
  expect(read.status).toBe(200);
  expect([read.body.history.length, read.body.history_total]).toEqual([ISSUE_READ_LIMITS.embedded, 61]);
  expect(read.body.history.at(-1)).toMatchObject({ user_id: writerId, from: 'read-only', to: 'read-write' });

  const pages = [];
  for (let after = 0; ; ) {
    const page = await system.api('GET', `/api/v1/queues/${queueId}/permissions/history?after_id=${after}&limit=20`, { token: admin });
    expect(page.status).toBe(200);
    pages.push(page.body);
    if (page.body.next_after_id === null) break;
    after = page.body.next_after_id;
  }
  expect(pages.map((p) => [p.items.length, p.total])).toEqual([[20, 61], [20, 61], [20, 61], [1, 61]]);
  const all = pages.flatMap((p) => p.items);
  expect(all[0]).toMatchObject({ user_id: writerId, from: null, to: 'read-write' });
  expect(all.slice(-ISSUE_READ_LIMITS.embedded)).toEqual(read.body.history);
  expect((await system.api('GET', `/api/v1/queues/${queueId}/permissions/history?limit=51`, { token: admin })).status).toBe(422);
  expect((await system.api('GET', `/api/v1/queues/${queueId}/permissions/history`, { token: writer })).status).toBe(403);
}, 60_000);
