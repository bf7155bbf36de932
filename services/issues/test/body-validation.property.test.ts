import fc from 'fast-check';
import { useIssuesService, type Member, type Workspace } from './harness';

/**
 * Random bodies, from plausible to absurd, sent to every endpoint that takes one:
 * the service never answers 5xx, a body from the valid generator is accepted (2xx),
 * and whenever it refuses (4xx) nothing at all changed in its tables (outbox included).
 */
const h = useIssuesService();
let ws: Workspace;
let writer: Member;
let queue: any;
let readOnlyQueue: any;
let hiddenQueue: any;
let issue: any;
/** Another issue, a valid parent for `issue` (an issue cannot be its own parent). */
let another: any;

const TABLES = ['queues', 'statuses', 'issues', 'comments', 'worklogs', 'issue_history', 'issue_links', 'outbox_events'];
const SNAPSHOT = `SELECT ${TABLES.map((t) => `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) FROM ${t} t)`).join(' || ')} AS digest`;
const snapshot = async () => (await h.schema.query<{ digest: string }>(SNAPSHOT))[0]!.digest;

beforeAll(async () => {
  ws = await h.workspace();
  writer = h.member(ws.id);
  queue = await h.queue(ws, { key: 'PROP' });
  readOnlyQueue = await h.queue(ws, { key: 'READ' });
  hiddenQueue = await h.queue(ws, { key: 'HIDDEN' });
  h.grant(writer, queue.id, 'read-write');
  h.grant(writer, readOnlyQueue.id, 'read-only');
  issue = await h.issue(writer, queue.id, { title: 'Target' });
  another = await h.issue(writer, queue.id, { title: 'Another' });
});

// PROPERTY_RUNS=1000 for a longer hunt; the default keeps the file well under a minute.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 120);

const weirdString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\uD800', '💥', 'PROP-1', 'prop-2', 'NOPE-1', '2024-02-29', '2023-02-29', '0000-01-01', '9999-12-31',
    "'; DROP TABLE issues; --", '"unterminated', '!!!', 'a & | ! b', 'x'.repeat(501), 'y'.repeat(101), 'z'.repeat(13)),
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1, 2, 1.5, 1440, 1441, 2_147_483_647, 2_147_483_648, 1e15, 1e16, -1e16, Number.MAX_SAFE_INTEGER, 1e308),
);
const anything = fc.oneof(weirdString, weirdNumber, fc.boolean(), fc.constant(null), fc.array(fc.oneof(weirdString, weirdNumber), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }));

/** A body to send, and whether it came from the valid generator (so it must be accepted). */
interface Sent {
  body: unknown;
  valid: boolean;
}

/**
 * Valid bodies (so the property also covers what gets past validation: each must be
 * accepted), objects whose known fields are often plausible and sometimes anything,
 * plus now and then an unknown field, or any JSON at all.
 */
function bodies(fields: Record<string, fc.Arbitrary<unknown>>, valid?: fc.Arbitrary<unknown>): fc.Arbitrary<Sent> {
  const record = fc.record(
    Object.fromEntries(Object.entries(fields).map(([name, arb]) => [name, fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: anything })])),
    { requiredKeys: [] },
  );
  const extra = fc.option(fc.dictionary(fc.string({ maxLength: 8 }), anything, { maxKeys: 2 }), { freq: 5 });
  const unchecked = (body: unknown): Sent => ({ body, valid: false });
  return fc.oneof(
    { weight: valid ? 3 : 0, arbitrary: (valid ?? fc.constant({})).map((body): Sent => ({ body, valid: true })) },
    { weight: 6, arbitrary: fc.tuple(record, extra).map(([body, more]) => unchecked({ ...(more ?? {}), ...body })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(unchecked) },
  );
}

const title = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), weirdString);
const ids = () => fc.constantFrom(queue.id, readOnlyQueue.id, hiddenQueue.id, 2_000_000_000, 0, -1);
const userIds = () => fc.constantFrom(writer.id, ws.admin.id, 2_000_000_000, null, 0);
const labels = fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), weirdString), { maxLength: 6 });
const date = fc.oneof(fc.constantFrom('2030-01-31', '2001-01-01', null), weirdString);
const priority = fc.constantFrom('low', 'normal', 'high', 'critical', 'urgent', null);
const validText = (max: number) => fc.string({ minLength: 1, maxLength: max });
/** Fields every valid issue body may carry; `parentId` is an issue that may be its parent. */
const validIssueFields = (parentId: number) => ({
  description: fc.string({ maxLength: 60 }),
  assignee_id: fc.constantFrom(writer.id, null),
  parent_id: fc.constantFrom(parentId, null),
  priority: fc.constantFrom('low', 'normal', 'high', 'critical'),
  type: validText(50),
  labels: fc.array(validText(10), { maxLength: 5 }),
  due_date: fc.constantFrom('2030-01-31', '2001-01-01', null),
  estimate_minutes: fc.integer({ min: 0, max: 1_000_000 }),
});

async function neverBreaks(method: string, path: () => string, arb: fc.Arbitrary<Sent>, as: () => Member = () => writer) {
  const statuses: number[] = [];
  await fc.assert(
    fc.asyncProperty(arb, async ({ body, valid }) => {
      const before = await snapshot();
      const res = await h.call(method, path(), { as: as(), body });
      statuses.push(res.status);
      expect(res.status).toBeLessThan(500);
      // A body from the valid generator gets past validation: accepted, whatever it holds.
      if (valid) expect({ body, status: res.status, accepted: res.status >= 200 && res.status < 300 }).toEqual({ body, status: res.status, accepted: true });
      if (res.status >= 400) {
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await snapshot()).toBe(before);
      }
    }),
    { numRuns: RUNS },
  );
  return statuses;
}

describe('random bodies never break the service nor change data when refused', () => {
  test('POST /api/v1/issues', async () => {
    const plausible = {
      queue_id: ids(),
      title,
      description: fc.oneof(fc.string({ maxLength: 60 }), fc.constant('see PROP-1 and PROP-2')),
      assignee_id: userIds(),
      parent_id: fc.constantFrom(issue.id, 2_000_000_000, null),
      priority,
      type: fc.oneof(fc.string({ maxLength: 51 }), fc.constant('bug')),
      labels,
      due_date: date,
      estimate_minutes: weirdNumber,
    };
    const valid = fc.record({ queue_id: fc.constant(queue.id), title: validText(40), ...validIssueFields(issue.id) }, { requiredKeys: ['queue_id', 'title'] });
    const statuses = await neverBreaks('POST', () => '/api/v1/issues', bodies(plausible, valid));
    // The generator must reach past validation, or the property would prove little.
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(3);
  });

  test('PATCH /api/v1/issues/{key}', async () => {
    const ownStatuses = queue.statuses.map((s: { id: number }) => s.id);
    const plausible = {
      version: fc.oneof(fc.integer({ min: 1, max: 400 }), weirdNumber),
      title,
      description: fc.oneof(fc.string({ maxLength: 60 }), fc.constant('mentions PROP-2')),
      status_id: fc.constantFrom(...ownStatuses, readOnlyQueue.statuses[0].id, 2_000_000_000),
      position: weirdNumber,
      assignee_id: userIds(),
      parent_id: fc.constantFrom(issue.id, issue.id + 1, 2_000_000_000, null),
      priority,
      type: fc.string({ maxLength: 51 }),
      labels,
      due_date: date,
      estimate_minutes: weirdNumber,
    };
    const valid = fc.record(
      { title: validText(40), status_id: fc.constantFrom(...ownStatuses), position: fc.double({ min: -1e6, max: 1e6, noNaN: true }), ...validIssueFields(another.id) },
      { requiredKeys: [] },
    );
    const statuses = await neverBreaks('PATCH', () => `/api/v1/issues/${issue.key}`, bodies(plausible, valid));
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(3);
  });

  test('POST /api/v1/queues', async () => {
    // Valid bodies need keys no queue has yet: a counter, not a random pick (fast-check favours small, repeated values).
    let made = 0;
    const newKey = fc.constant(null).map(() => `VALID_Q${++made}`);
    const valid = fc.record({ key: newKey, name: validText(40), description: fc.string({ maxLength: 40 }) }, { requiredKeys: ['key', 'name'] });
    const statuses = await neverBreaks(
      'POST',
      () => '/api/v1/queues',
      bodies(
        {
          key: fc.oneof(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{1,11}$/), weirdString),
          name: title,
          description: fc.string({ maxLength: 40 }),
        },
        valid,
      ),
      () => ws.admin,
    );
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(3);
  });

  test('PATCH /api/v1/queues/{queue_id}', async () => {
    await neverBreaks('PATCH', () => `/api/v1/queues/${queue.id}`, bodies({ name: title, description: fc.string({ maxLength: 40 }) }), () => ws.admin);
  });

  test('POST /api/v1/issues/{key}/comments', async () => {
    await neverBreaks('POST', () => `/api/v1/issues/${issue.key}/comments`, bodies({ body: fc.oneof(title, fc.constant('dup of PROP-2')) }));
  });

  test('POST /api/v1/issues/{key}/worklogs', async () => {
    await neverBreaks(
      'POST',
      () => `/api/v1/issues/${issue.key}/worklogs`,
      bodies({ minutes: fc.oneof(fc.integer({ min: 1, max: 1440 }), weirdNumber), description: fc.string({ maxLength: 40 }) }),
    );
  });

  test('POST /api/v1/issues/search', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodies({
          search: fc.oneof(weirdString, fc.constant(null)),
          queue_ids: fc.array(ids(), { maxLength: 3 }),
          status_ids: fc.array(fc.integer({ min: -1, max: 100 }), { maxLength: 3 }),
          assignee_ids: fc.array(fc.oneof(userIds(), fc.integer()), { maxLength: 3 }),
          mine: fc.boolean(),
          priority,
          category: fc.constantFrom('open', 'progress', 'done', 'closed', null),
          overdue: fc.boolean(),
          label: fc.oneof(weirdString, fc.constant(null)),
        }),
        async ({ body }) => {
          const res = await h.call('POST', '/api/v1/issues/search', { as: writer, body });
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) expect(res.body.every((i: { queue_id: number }) => i.queue_id !== hiddenQueue.id)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('any string as an issue key in the path, and any raw text as a body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(weirdString, fc.string({ minLength: 1, maxLength: 20 })), fc.string({ maxLength: 40 }), async (key, raw) => {
        const before = await snapshot();
        // encodeURIComponent refuses lone surrogates; send their UTF-8 replacement instead.
        const path = `/api/v1/issues/${encodeURIComponent(key.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')) || 'x'}`;
        for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['POST', '/comments'], ['POST', '/worklogs']] as const) {
          const res = await h.call(method, path + suffix, { as: writer, ...(method === 'GET' ? {} : { raw, headers: { 'content-type': 'application/json' } }) });
          expect(res.status).toBeLessThan(500);
        }
        const mutated = await snapshot();
        if (mutated !== before) {
          // Only a valid JSON body sent to a real issue may have changed something.
          expect(() => JSON.parse(raw)).not.toThrow();
        }
      }),
      { numRuns: 60 },
    );
  });
});
