import http from 'node:http';
import { QueuesLookup } from '@tracker/contracts';
import type { Signer } from '@tracker/signing';
import { sendJson, serviceCallerOf, startFakeUpstream, type FakeAccess } from '@tracker/testing';

/**
 * The fake access service of @tracker/testing with POST /internal/queues/lookup, which it
 * does not serve: a relay in front of it answers that call from the fake's registered
 * queues (as the real service answers from its own) and passes every other call through.
 * Lookups are recorded in the fake's `calls`; `setDown` takes both down.
 */
export async function withQueuesLookup(fake: FakeAccess, service: Signer): Promise<FakeAccess> {
  let down = false;
  const relay = await startFakeUpstream((request, res) => {
    if (request.method !== 'POST' || request.url !== '/internal/queues/lookup') {
      const upstream = http.request(fake.url + request.url, { method: request.method, headers: request.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(request.bytes);
      return;
    }
    const body = request.bytes.length ? JSON.parse(request.body) : undefined;
    fake.calls.push({ method: request.method, path: request.url, body });
    const send = (status: number, json: unknown) => sendJson(res, status, json);
    if (serviceCallerOf(request, request.bytes, 'access') !== service) return send(401, { code: 'unauthorized' });
    if (down) return send(500, { code: 'internal_error' });
    const parsed = QueuesLookup.safeParse(body);
    if (!parsed.success) return send(422, { code: 'validation_failed' });
    const ids = [...new Set(parsed.data.queue_ids)].filter((id) => fake.registeredQueues.get(id)?.workspaceId === parsed.data.workspace_id);
    send(200, { queue_ids: ids.sort((a, b) => a - b) });
  });
  return {
    ...fake,
    url: relay.url,
    setDown: (value) => {
      down = value;
      fake.setDown(value);
    },
    close: async () => {
      await relay.close();
      await fake.close();
    },
  };
}
