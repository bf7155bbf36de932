import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { startRoundRobin, type RoundRobin } from '@tracker/system-tests-support';
import { closedPortUrl, startFakeUpstream, type FakeUpstream } from '@tracker/testing';

/** A replica that names itself and echoes what it was sent. */
const replica = (name: string): Promise<FakeUpstream> =>
  startFakeUpstream((request, res) => {
    res.writeHead(201, { 'x-replica': name, 'x-seen-host': request.headers.host ?? '', 'set-cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ name, method: request.method, url: request.url, length: request.bytes.length, custom: request.headers['x-custom'] }));
  });

let a: FakeUpstream;
let b: FakeUpstream;
let roundRobin: RoundRobin;
beforeAll(async () => {
  [a, b] = await Promise.all([replica('a'), replica('b')]);
});
afterEach(() => roundRobin?.close());
afterAll(() => Promise.all([a.close(), b.close()]));

test('when one client sends consecutive requests on a kept-alive connection, then they alternate between the replicas, passed through unchanged', async () => {
  roundRobin = await startRoundRobin([a.url, b.url]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = 'x'.repeat(300_000);
  const answers: Array<{ status: number; headers: http.IncomingHttpHeaders; body: any; socket: unknown }> = [];
  for (let i = 0; i < 4; i++) {
    answers.push(
      await new Promise((resolve, reject) => {
        const req = http.request(`${roundRobin.url}/path/${i}?q=1`, { method: 'POST', agent, headers: { 'x-custom': `c${i}`, host: 'issues.tracker' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text), socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
      }),
    );
  }
  agent.destroy();
  // One connection from the client, yet the replicas took turns.
  expect(new Set(answers.map((answer) => answer.socket)).size).toBe(1);
  expect(answers.map((answer) => answer.headers['x-replica'])).toEqual(['a', 'b', 'a', 'b']);
  expect(roundRobin.sent).toEqual([2, 2]);
  expect(answers[1]).toMatchObject({
    status: 201,
    headers: { 'x-seen-host': 'issues.tracker', 'set-cookie': ['a=1', 'b=2'] },
    body: { name: 'b', method: 'POST', url: '/path/1?q=1', length: 300_000, custom: 'c1' },
  });
});

test('when the chosen replica is down, then the caller gets a connection error, not an answer; the next request reaches the other one', async () => {
  const down = await closedPortUrl();
  roundRobin = await startRoundRobin([down, a.url]);
  await expect(fetch(`${roundRobin.url}/x`)).rejects.toThrow();
  const next = await fetch(`${roundRobin.url}/x`);
  expect(next.status).toBe(201);
  expect(next.headers.get('x-replica')).toBe('a');
});

test('when a replica answers before the whole body and closes the connection, then the caller gets that answer, and its connection takes the next request', async () => {
  // As the gateway does with a body over its limit: 413 at once, then the connection
  // closed for writing and left unread (the gateway's until its request timeout).
  const sockets: net.Socket[] = [];
  const refusing = net.createServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      socket.pause();
      socket.end('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large');
    });
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', () => resolve()));
  // Each round: the large body meets the refusing replica, the two small ones `a`.
  roundRobin = await startRoundRobin([`http://127.0.0.1:${(refusing.address() as AddressInfo).port}`, a.url, a.url]);
  try {
    for (let round = 0; round < 3; round++) {
      const refused = await fetch(`${roundRobin.url}/big`, { method: 'POST', body: 'x'.repeat(1_100_000) });
      expect([refused.status, await refused.text()]).toEqual([413, 'too large']);
      for (let i = 0; i < 2; i++) expect((await fetch(`${roundRobin.url}/small`, { method: 'POST', body: 'small' })).status).toBe(201);
    }
  } finally {
    sockets.forEach((socket) => socket.destroy());
    refusing.close();
  }
}, 10_000);
