import { clientHolds, ifMatchPrecondition, issueEtag } from '../src/routes/conditional';
import { admitsVersion } from '../src/domain/issue-update.rules';
import { problem, useIssuesService } from './harness';

describe('entity tags of an issue', () => {
  test('when tagged, then the tag is the version and 16 hex digits of the answer digest, and another answer gets another tag', () => {
    expect(issueEtag(7, '{"a":1}')).toMatch(/^"7-[0-9a-f]{16}"$/);
    expect(issueEtag(7, '{"a":1}')).toBe(issueEtag(7, '{"a":1}'));
    expect(issueEtag(7, '{"a":2}')).not.toBe(issueEtag(7, '{"a":1}'));
  });

  test.each([
    [undefined, undefined],
    ['*', 'any'],
    [' * ', 'any'],
    ['"3-0123456789abcdef"', [3]],
    ['"3-0123456789abcdef", "4-fedcba9876543210"', [3, 4]],
    ['W/"3-0123456789abcdef"', []],
    ['"3"', []],
    ['"3-XYZ"', []],
    ['garbage', []],
    ['', []],
  ])('when If-Match is %p, then it admits %p', (header, expected) => {
    expect(ifMatchPrecondition(header)).toEqual(expected);
  });

  test('when a precondition is checked, then none and `*` admit any version, a list only its versions', () => {
    expect(admitsVersion(undefined, 5)).toBe(true);
    expect(admitsVersion('any', 5)).toBe(true);
    expect(admitsVersion([4, 5], 5)).toBe(true);
    expect(admitsVersion([4], 5)).toBe(false);
    expect(admitsVersion([], 5)).toBe(false);
  });

  test('when If-None-Match is compared, then weakly (W/ ignored), `*` holds anything, and an absent header holds nothing', () => {
    const tag = '"2-0123456789abcdef"';
    expect(clientHolds(undefined, tag)).toBe(false);
    expect(clientHolds('*', tag)).toBe(true);
    expect(clientHolds(tag, tag)).toBe(true);
    expect(clientHolds(`W/${tag}`, tag)).toBe(true);
    expect(clientHolds(`"1-0123456789abcdef", ${tag}`, tag)).toBe(true);
    expect(clientHolds('"2-fedcba9876543210"', tag)).toBe(false);
  });
});

describe('conditional requests on /api/v1/issues/{key}', () => {
  const h = useIssuesService();

  async function setup() {
    const { queue, writer } = await h.writableQueue();
    const issue = await h.issue(writer, queue.id, { title: 'Tagged' });
    return { writer, issue };
  }

  test('when an issue is read, then its ETag starts with its version; If-None-Match with that tag is 304 without a body', async () => {
    const { writer, issue } = await setup();
    const read = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"1-[0-9a-f]{16}"$/);
    const again = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer, headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.body).toBeUndefined(); // the harness parses no text: the answer had no body
  });

  test('when a comment is added (the version stays), then the read gets a new ETag and If-None-Match with the old one is 200', async () => {
    const { writer, issue } = await setup();
    const before = (await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).headers.get('etag')!;
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'news' } })).status).toBe(201);
    const after = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer, headers: { 'If-None-Match': before } });
    expect(after.status).toBe(200);
    expect(after.body.version).toBe(1);
    expect(after.headers.get('etag')).toMatch(/^"1-/);
    expect(after.headers.get('etag')).not.toBe(before);
  });

  test('when PATCH carries If-Match with the current tag, then the change is made and the answer carries the new ETag', async () => {
    const { writer, issue } = await setup();
    const etag = (await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).headers.get('etag')!;
    const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Changed' }, headers: { 'If-Match': etag } });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(2);
    expect(res.headers.get('etag')).toMatch(/^"2-[0-9a-f]{16}"$/);
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  test('when PATCH carries If-Match with a stale tag, then 412 precondition_failed with the current version, and nothing changes', async () => {
    const { writer, issue } = await setup();
    const stale = (await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).headers.get('etag')!;
    expect((await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'First' } })).status).toBe(200);
    const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Second' }, headers: { 'If-Match': stale } });
    expect(res.status).toBe(412);
    expect(res.body).toEqual(problem(412, 'precondition_failed'));
    expect(res.body.version).toBe(2);
    expect((await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).body.title).toBe('First');
    expect(await h.outbox('issue', issue.id)).toHaveLength(2);
  });

  test.each([
    ['a weak tag', (etag: string) => `W/${etag}`],
    ['a foreign tag', () => '"abc"'],
  ])('when PATCH carries If-Match with %s, then 412 (strong comparison)', async (_case, tagOf) => {
    const { writer, issue } = await setup();
    const etag = (await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).headers.get('etag')!;
    const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'No' }, headers: { 'If-Match': tagOf(etag) } });
    expect(res.status).toBe(412);
    expect(res.body.version).toBe(1);
  });

  test('when PATCH carries If-Match: * , then it applies to the existing issue; a missing issue is still 404', async () => {
    const { writer, issue } = await setup();
    expect((await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Any' }, headers: { 'If-Match': '*' } })).status).toBe(200);
    expect((await h.call('PATCH', `/api/v1/issues/NOPE-1`, { as: writer, body: { title: 'Any' }, headers: { 'If-Match': '*' } })).status).toBe(404);
  });

  test('when If-Match is current but the body version is stale, then 409 version_conflict (each check keeps its own answer)', async () => {
    const { writer, issue } = await setup();
    expect((await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'v2' } })).status).toBe(200);
    const etag = (await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).headers.get('etag')!;
    const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'v3', version: 1 }, headers: { 'If-Match': etag } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'version_conflict', version: 2 });
  });

  test('when the tag a PATCH answered with is used as If-Match for the next PATCH, then it matches (the same version)', async () => {
    const { writer, issue } = await setup();
    const first = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'one' } });
    const second = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'two' }, headers: { 'If-Match': first.headers.get('etag')! } });
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(3);
  });
});
