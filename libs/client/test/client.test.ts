import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTrackerClient, TrackerApiError, updateIssueSafely, UpdateConflictError, type IssueDetails } from '../src';

test('the committed types are those generated from the current OpenAPI document', () => {
  const committed = fs.readFileSync(path.join(__dirname, '../src/api.d.ts'), 'utf8');
  // The generator is ESM-only: run it as the script does, in its own process.
  const generated = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-types.ts', '--stdout'], { cwd: path.join(__dirname, '..'), encoding: 'utf8' });
  // Stale types: run `pnpm --filter @tracker/client generate:types`.
  expect(committed).toBe(generated);
});

/** A fake server: one issue with a version; `interfere` bumps it between a read and a PATCH. */
function fakeTracker(options: { interfere?: (attempt: number) => boolean; patchStatus?: number } = {}) {
  const issue = { id: 1, key: 'WEB-1', title: 'Start', labels: [] as string[], version: 1 } as unknown as IssueDetails & { labels: string[] };
  const calls: Array<{ method: string; url: string; body?: any; authorization: string | null }> = [];
  let reads = 0;
  const json = (status: number, body: unknown, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
  const fetch = async (input: Request) => {
    const body = input.method === 'PATCH' ? ((await input.json()) as Record<string, any>) : undefined;
    calls.push({ method: input.method, url: input.url, body, authorization: input.headers.get('authorization') });
    if (input.method === 'GET') {
      reads += 1;
      const snapshot = structuredClone(issue);
      if (options.interfere?.(reads)) issue.version += 1;
      return json(200, snapshot);
    }
    if (options.patchStatus) return json(options.patchStatus, { code: 'forbidden', status: options.patchStatus, detail: 'No.', title: 'Not enough rights', type: 'x' }, 'application/problem+json');
    if (body!.version !== issue.version) {
      return json(409, { code: 'version_conflict', status: 409, detail: 'Stale.', title: 'Version conflict', type: 'x', version: issue.version }, 'application/problem+json');
    }
    Object.assign(issue, body, { version: issue.version + 1 });
    return json(200, issue);
  };
  const client = createTrackerClient({ baseUrl: 'http://tracker.test/', token: 'trk_test', fetch });
  return { client, calls, issue };
}

describe('updateIssueSafely', () => {
  test('when nobody else writes, then one read and one PATCH with the version read', async () => {
    const { client, calls } = fakeTracker();
    const updated = await updateIssueSafely(client, 'WEB-1', (issue) => ({ labels: [...issue.labels, 'a'] }));
    expect(updated).toMatchObject({ version: 2, labels: ['a'] });
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['GET', 'http://tracker.test/api/v1/issues/WEB-1', undefined],
      ['PATCH', 'http://tracker.test/api/v1/issues/WEB-1', { labels: ['a'], version: 1 }],
    ]);
    expect(calls.every((c) => c.authorization === 'Bearer trk_test')).toBe(true);
  });

  test('when the issue changes between read and write, then it re-reads and applies the change to the new state', async () => {
    const { client, calls } = fakeTracker({ interfere: (read) => read <= 2 });
    const seen: number[] = [];
    const updated = await updateIssueSafely(client, 'WEB-1', (issue) => {
      seen.push(issue.version);
      return { labels: [...issue.labels, 'mine'] };
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body.version)).toEqual([1, 2, 3]);
    expect(updated).toMatchObject({ version: 4, labels: ['mine'] });
  });

  test('when every attempt conflicts, then it gives up after maxAttempts with UpdateConflictError', async () => {
    const { client, calls } = fakeTracker({ interfere: () => true });
    await expect(updateIssueSafely(client, 'WEB-1', () => ({ title: 'x' }), { maxAttempts: 3 })).rejects.toEqual(new UpdateConflictError('WEB-1', 3));
    expect(calls.map((c) => c.method)).toEqual(['GET', 'PATCH', 'GET', 'PATCH', 'GET', 'PATCH']);
  });

  test('when the change function returns null, then nothing is written', async () => {
    const { client, calls } = fakeTracker();
    expect(await updateIssueSafely(client, 'WEB-1', () => null)).toMatchObject({ version: 1 });
    expect(calls.map((c) => c.method)).toEqual(['GET']);
  });

  test('when the PATCH is refused for another reason, then that error is thrown at once', async () => {
    const { client, calls } = fakeTracker({ patchStatus: 403 });
    const failure = updateIssueSafely(client, 'WEB-1', () => ({ title: 'x' }));
    await expect(failure).rejects.toBeInstanceOf(TrackerApiError);
    await expect(failure).rejects.toMatchObject({ status: 403, problem: { code: 'forbidden' } });
    expect(calls.map((c) => c.method)).toEqual(['GET', 'PATCH']);
  });
});
