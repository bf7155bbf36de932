import http from 'node:http';
import { QueuesLookup } from '@tracker/contracts';
import type { Signer } from '@tracker/signing';
import { serviceCallerOf, type FakeAccess } from '@tracker/testing';

/**
 * The fake access service of @tracker/testing with POST /internal/queues/lookup, which it
 * does not serve: a relay in front of it answers that call from the fake's registered
 * queues (as the real service answers from its own) and passes every other call through.
 * Lookups are recorded in the fake's `calls`; `setDown` takes both down.
 */
export async function withQueuesLookup(fake: FakeAccess, service: Signer): Promise<FakeAccess> {
  let down = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.method !== 'POST' || req.url !== '/internal/queues/lookup') {
        const upstream = http.request(fake.url + req.url, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end(raw);
        return;
      }
      const body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      fake.calls.push({ method: req.method!, path: req.url, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (serviceCallerOf(req, raw, 'access') !== service) return send(401, { code: 'unauthorized' });
      if (down) return send(500, { code: 'internal_error' });
      const parsed = QueuesLookup.safeParse(body);
      if (!parsed.success) return send(422, { code: 'validation_failed' });
      const ids = [...new Set(parsed.data.queue_ids)].filter((id) => fake.registeredQueues.get(id)?.workspaceId === parsed.data.workspace_id);
      send(200, { queue_ids: ids.sort((a, b) => a - b) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    ...fake,
    url: `http://127.0.0.1:${port}`,
    setDown: (value) => {
      down = value;
      fake.setDown(value);
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await fake.close();
    },
  };
}
