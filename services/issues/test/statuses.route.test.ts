import { Status } from '@tracker/contracts';
import { useIssuesService } from './harness';

const h = useIssuesService();

describe('GET /api/v1/statuses', () => {
  test('when a member lists statuses, then only those of queues they can read come back, in queue and position order', async () => {
    const ws = await h.workspace();
    const [a, b, c] = [await h.queue(ws), await h.queue(ws), await h.queue(ws)];
    const member = h.member(ws.id);
    h.grant(member, c.id, 'read-only');
    h.grant(member, a.id, 'read-write');
    const res = await h.call('GET', '/api/v1/statuses', { as: member });
    expect(res.status).toBe(200);
    expect(res.body.every((s: unknown) => Status.parse(s))).toBe(true);
    expect(res.body).toEqual([...a.statuses, ...c.statuses]);
    expect(res.body.some((s: { queue_id: number }) => s.queue_id === b.id)).toBe(false);
  });

  test('when a workspace admin lists statuses, then every queue of the workspace and none of another', async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const [a, b] = [await h.queue(ws), await h.queue(ws)];
    await h.queue(other);
    const res = await h.call('GET', '/api/v1/statuses', { as: ws.admin });
    expect(res.body).toEqual([...a.statuses, ...b.statuses]);
  });

  test('when a member has no grants, then an empty list', async () => {
    const ws = await h.workspace();
    await h.queue(ws);
    expect(await h.call('GET', '/api/v1/statuses', { as: h.member(ws.id) })).toMatchObject({ status: 200, body: [] });
  });
});
