import http from 'node:http';
import { closedPortUrl, sendJson, startFakeUpstream, type FakeUpstream } from '../src';

let upstream: FakeUpstream | undefined;
afterEach(() => upstream?.close());

describe('startFakeUpstream', () => {
  test('when requests come, then each is recorded whole, in order, and answered by the handler', async () => {
    upstream = await startFakeUpstream((request, response) => sendJson(response, 201, { got: request.body }, { 'x-fake': 'yes' }));
    const res = await fetch(`${upstream.url}/a/b?c=1`, { method: 'POST', headers: { 'x-custom': '1' }, body: 'café' });
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-fake'), await res.json()]).toEqual([201, 'application/json', 'yes', { got: 'café' }]);
    await fetch(`${upstream.url}/second`);
    expect(upstream.requests).toEqual([
      { method: 'POST', url: '/a/b?c=1', headers: expect.objectContaining({ 'x-custom': '1' }), body: 'café', bytes: Buffer.from('café'), at: expect.any(Number) },
      { method: 'GET', url: '/second', headers: expect.any(Object), body: '', bytes: Buffer.alloc(0), at: expect.any(Number) },
    ]);
    expect(upstream.connections()).toBeGreaterThanOrEqual(1);
  });

  test('when the handler leaves a request unanswered, then the caller hangs until the upstream closes', async () => {
    upstream = await startFakeUpstream(() => undefined);
    const answer = fetch(`${upstream.url}/hang`, { signal: AbortSignal.timeout(300) });
    await expect(answer).rejects.toThrow();
    expect(upstream.requests.map((r) => r.url)).toEqual(['/hang']);
    const held = new Promise<string>((resolve) => http.get(`${upstream!.url}/held`, () => resolve('answered')).on('error', () => resolve('dropped')));
    await new Promise((r) => setTimeout(r, 50));
    await upstream.close();
    expect(await held).toBe('dropped');
    upstream = undefined;
  });

  test('when the handler drops the connection or throws, then the caller sees a connection error or a 500 naming the error', async () => {
    upstream = await startFakeUpstream((request, response) => {
      if (request.url === '/drop') return void response.socket?.destroy();
      throw new Error('no such route');
    });
    await expect(fetch(`${upstream.url}/drop`)).rejects.toThrow();
    const failed = await fetch(`${upstream.url}/other`);
    expect([failed.status, await failed.text()]).toEqual([500, expect.stringContaining('no such route')]);
  });

  test('a closed port refuses connections', async () => {
    await expect(fetch(await closedPortUrl())).rejects.toThrow();
  });
});
