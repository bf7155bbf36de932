import { bodyDigest, checkTicket, PRINCIPAL_HEADER, type UserPrincipal } from '@tracker/kit';
import { devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { signedClient, startFakeUpstream, type UpstreamRequest } from '../src';

/** A server that records each request and answers with `answer`. */
const recorder = (answer: { status: number; text: string }) =>
  startFakeUpstream((_request, response) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text));

const user: UserPrincipal = { kind: 'user', userId: 7, workspaceId: 3, workspaceRole: 'member', tokenId: 1 };
const trusted = parseTrustedKeys(devTrustedKeysText());
const principalIn = (request: UpstreamRequest, audience: 'issues' | 'access') =>
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
      const [request] = server.requests;
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
      expect(principalIn(server.requests[0]!, 'issues')).toMatchObject({ ok: true, principal: { kind: 'service', service: 'statistics' } });
    } finally {
      await server.close();
    }
  });

  test('when called without `as`, with a raw body and headers, then they are sent exactly and no ticket is added', async () => {
    const server = await recorder({ status: 204, text: '' });
    try {
      const reply = await signedClient(server.url, 'issues')('POST', '/x', { raw: '{oops', headers: { 'content-type': 'text/plain' } });
      expect(reply).toMatchObject({ status: 204, body: undefined, text: '' });
      const [request] = server.requests;
      expect(request!.body).toBe('{oops');
      expect(request!.headers['content-type']).toBe('text/plain');
      expect(request!.headers[PRINCIPAL_HEADER]).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
