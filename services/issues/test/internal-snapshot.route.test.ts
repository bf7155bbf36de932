import { IssueState, QueueState } from '@tracker/events';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

const get = (path: string) => h.call('GET', path, { service: 'statistics' });

describe('GET /internal/snapshot/{queues,issues}', () => {
  test('when the statistics service pages through queues and issues, then it gets every one with its revision and state', async () => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { key: 'SNAP' });
    await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: ws.admin, body: { name: 'Renamed' } });
    const issues: any[] = [];
    for (let i = 0; i < 3; i++) issues.push(await h.issue(ws.admin, queue.id, { title: `I${i}`, description: `text ${i}` }));
    await h.call('POST', `/api/v1/issues/${issues[1].key}/comments`, { as: ws.admin, body: { body: 'a comment' } });

    const queues = await get('/internal/snapshot/queues?limit=1000');
    expect(queues.status).toBe(200);
    const entry = queues.body.queues.find((q: { queue: { id: number } }) => q.queue.id === queue.id);
    expect(entry).toEqual({ revision: 2, queue: expect.objectContaining({ key: 'SNAP', name: 'Renamed' }) });
    expect(QueueState.parse(entry.queue)).toBeTruthy();
    expect(queues.body.next_after_id).toBeNull();

    const seen: any[] = [];
    let after = issues[0].id - 1;
    for (;;) {
      const page = await get(`/internal/snapshot/issues?after_id=${after}&limit=2`);
      expect(page.status).toBe(200);
      seen.push(...page.body.issues);
      if (page.body.next_after_id === null) break;
      after = page.body.next_after_id;
    }
    expect(seen.map((s) => s.issue.id)).toEqual(issues.map((i) => i.id));
    expect(seen.map((s) => s.revision)).toEqual([1, 2, 1]);
    expect(seen.map((s) => Object.keys(s).sort())).toEqual([['issue', 'revision'], ['issue', 'revision'], ['issue', 'revision']]);
    expect(IssueState.parse(seen[1].issue)).toMatchObject({ key: issues[1].key, description: 'text 1' });
    const comments = await get(`/internal/snapshot/comments?after_id=0&limit=1000`);
    expect(comments.status).toBe(200);
    expect(comments.body.comments.filter((c: { issue_id: number }) => c.issue_id === issues[1].id)).toEqual([{ id: expect.any(Number), issue_id: issues[1].id, body: 'a comment' }]);
  });

  test('when the query is invalid, then 422; a user principal is 401', async () => {
    for (const query of ['limit=0', 'limit=1001', 'after_id=-1', 'limit=abc']) {
      const res = await get(`/internal/snapshot/issues?${query}`);
      expect(res).toMatchObject({ status: 422, body: problem(422, 'validation_failed') });
    }
    const ws = await h.workspace();
    expect((await h.call('GET', '/internal/snapshot/issues', { as: ws.admin })).status).toBe(401);
  });
});
