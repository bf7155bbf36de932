import { UpstreamUnavailableError, type InternalClient } from '@tracker/kit';
import { accessClient } from '../src';

/** An InternalClient that answers from `answer` and records every call. */
function fakeClient(answer: (body: { workspace_id: number; queue_ids: number[] }) => { status: number; body: unknown }) {
  const calls: Array<{ method: string; path: string; body: any }> = [];
  const client: InternalClient = {
    call: async <T>(method: 'GET' | 'POST' | 'PUT', path: string, options: { body?: unknown } = {}) => {
      calls.push({ method, path, body: options.body });
      return answer(options.body as { workspace_id: number; queue_ids: number[] }) as { status: number; body: T };
    },
  };
  return { client, calls };
}

describe('lookupQueues', () => {
  test('when more than 1000 ids are asked, then they go in calls of at most 1000 and the answers are joined', async () => {
    const { client, calls } = fakeClient((body) => ({ status: 200, body: { queue_ids: body.queue_ids.filter((id) => id % 2 === 0) } }));
    const ids = Array.from({ length: 2500 }, (_, i) => i + 1);
    const found = await accessClient(client).lookupQueues(7, ids, 'rid');
    expect(calls.map((c) => [c.method, c.path, c.body.workspace_id, c.body.queue_ids.length])).toEqual([
      ['POST', '/internal/queues/lookup', 7, 1000],
      ['POST', '/internal/queues/lookup', 7, 1000],
      ['POST', '/internal/queues/lookup', 7, 500],
    ]);
    expect(found).toEqual(ids.filter((id) => id % 2 === 0));
  });

  test('when no ids are asked, then the access service is not called', async () => {
    const { client, calls } = fakeClient(() => ({ status: 500, body: {} }));
    expect(await accessClient(client).lookupQueues(7, [], null)).toEqual([]);
    expect(calls).toEqual([]);
  });

  test.each([
    ['a 404', { status: 404, body: { code: 'not_found' } }],
    ['a 422', { status: 422, body: { code: 'validation_failed' } }],
    ['a 500', { status: 500, body: {} }],
    ['a 200 of another shape', { status: 200, body: { ids: [1] } }],
    ['a 200 with ids that are not ids', { status: 200, body: { queue_ids: ['1'] } }],
  ])('when the access service answers %s, then it is unavailable (never "no such queue")', async (_name, answer) => {
    const { client } = fakeClient(() => answer);
    await expect(accessClient(client).lookupQueues(7, [1], null)).rejects.toBeInstanceOf(UpstreamUnavailableError);
  });
});
