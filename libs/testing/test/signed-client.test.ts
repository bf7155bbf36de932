import http from 'node:http';
import { bodyDigest, checkTicket, PRINCIPAL_HEADER, type UserPrincipal } from '@tracker/kit';
import { devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { signedClient } from '../src';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A server that records each request and answers with `answer`. */
async function recorder(answer: { status: number; text: string }) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const user: UserPrincipal = { kind: 'user', userId: 7, workspaceId: 3, workspaceRole: 'member', tokenId: 1 };
const trusted = parseTrustedKeys(devTrustedKeysText());
const principalIn = (request: Seen, audience: 'issues' | 'access') =>
  checkTicket(request.headers[PRINCIPAL_HEADER] as string | undefined, trusted, {
    audience,
    method: request.method,
    path: request.url,
    bodyDigest: bodyDigest(Buffer.from(request.body)),
  });

describe('signedClient', () => {
  test('when called as a user with a JSON body, then the request carries a ticket made for it and the JSON answer is parsed', async () => {
    const server = await recorder({ status: 201, text: '{"id":5}' });
    try {
      const reply = await signedClient(server.url, 'issues')('POST', '/api/v1/issues?x=1', { as: user, body: { title: 'A' } });
      expect(reply).toMatchObject({ status: 201, body: { id: 5 }, text: '{"id":5}' });
      const [request] = server.seen;
      expect(request!.body).toBe('{"title":"A"}');
      expect(request!.headers['content-type']).toBe('application/json');
      expect(principalIn(request!, 'issues')).toMatchObject({ ok: true, principal: user });
      expect(principalIn(request!, 'access')).toMatchObject({ ok: false });
    } finally {
      await server.close();
    }
  });

  test('when called as a service, then the ticket is that service’s own', async () => {
    const server = await recorder({ status: 200, text: '{}' });
    try {
      await signedClient(server.url, 'issues')('GET', '/internal/x', { as: { kind: 'service', service: 'statistics' } });
      expect(principalIn(server.seen[0]!, 'issues')).toMatchObject({ ok: true, principal: { kind: 'service', service: 'statistics' } });
    } finally {
      await server.close();
    }
  });

  test('when called without `as`, with a raw body and headers, then they are sent exactly and no ticket is added', async () => {
    const server = await recorder({ status: 204, text: '' });
    try {
      const reply = await signedClient(server.url, 'issues')('POST', '/x', { raw: '{oops', headers: { 'content-type': 'text/plain' } });
      expect(reply).toMatchObject({ status: 204, body: undefined, text: '' });
      const [request] = server.seen;
      expect(request!.body).toBe('{oops');
      expect(request!.headers['content-type']).toBe('text/plain');
      expect(request!.headers[PRINCIPAL_HEADER]).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
