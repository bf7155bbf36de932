import { randomInt } from 'node:crypto';
import http from 'node:http';
import { eventually, openEventStream, sleep, startFakeUpstream, testRedisUrl } from '@tracker/testing';
import { newToken, principalOf, startFakeAccessForGateway, startGateway, tokenHashOf, whenReady, type FakeAccessForGateway, type GatewayUnderTest } from './harness';

/**
 * GET /api/v1/events/stream through the gateway in this process, in front of a fake
 * notifications service that answers a stream and says what it saw: the stream outlives
 * the gateway's upstream timeout (400 ms here), passes unbuffered and uncompressed, gives
 * its client's place in flight back, and a client that leaves closes it upstream.
 */
interface FakeStreams {
  url: string;
  /** Streams the fake service answered, with whether each was closed by the gateway. */
  opened: Array<{ url: string; body: string; closed: boolean; ticket: boolean; send: (text: string) => void }>;
  close: () => Promise<void>;
}

async function startFakeStreams(): Promise<FakeStreams> {
  const opened: FakeStreams['opened'] = [];
  const upstream = await startFakeUpstream((request, res) => {
    if (request.url.startsWith('/api/v1/events/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      res.flushHeaders();
      res.write('retry: 2000\n\n');
      const entry = { url: request.url, body: request.body, closed: false, ticket: typeof request.headers['x-tracker-principal'] === 'string', send: (text: string) => void res.write(text) };
      opened.push(entry);
      res.on('close', () => (entry.closed = true));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { url: upstream.url, opened, close: upstream.close };
}

let access: FakeAccessForGateway;
let upstream: FakeStreams;
let gw: GatewayUnderTest;
beforeAll(async () => {
  access = await startFakeAccessForGateway();
  upstream = await startFakeStreams();
  gw = await startGateway(access, {
    REDIS_URL: testRedisUrl(),
    UPSTREAM_TIMEOUT_MS: '400',
    CLIENT_REQUESTS_IN_FLIGHT: '2',
    CLIENT_ADDRESS_HEADER: 'X-Forwarded-For',
    NOTIFICATIONS_URL: upstream.url,
  });
  await whenReady(gw.gateway.redis);
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await access.close();
});

function knownToken(): string {
  const token = newToken();
  access.tokens.set(tokenHashOf(token), principalOf('member'));
  return token;
}
const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const open = (token: string, client: string, query = '') =>
  openEventStream(`${gw.url}/api/v1/events/stream${query}`, { authorization: `Bearer ${token}`, 'x-forwarded-for': client, 'accept-encoding': 'gzip, br' });

test('a stream outlives the upstream timeout, passes its frames as they come, unbuffered and uncompressed, with its headers', async () => {
  const stream = await open(knownToken(), newClient(), '?types=issue.*');
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(stream.headers.get('cache-control')).toBe('no-store');
  expect(stream.headers.get('x-accel-buffering')).toBe('no');
  expect(stream.headers.get('content-encoding')).toBeNull();
  expect(stream.headers.get('x-request-id')).toEqual(expect.any(String));
  const upstreamSide = upstream.opened.at(-1)!;
  expect([upstreamSide.url, upstreamSide.ticket]).toEqual(['/api/v1/events/stream?types=issue.*', true]);
  await stream.until((s) => s.retries.length === 1, 5000, 'retry');
  // Silent upstream for three times the upstream timeout: a request would have been cut.
  await sleep(1200);
  upstreamSide.send('id: c1_MQ\nevent: issue.created\ndata: {"id":"x"}\n\n');
  await stream.until((s) => s.events.length === 1, 5000, 'the event');
  expect(stream.events).toEqual([{ id: 'c1_MQ', event: 'issue.created', data: '{"id":"x"}' }]);
  expect([stream.ended(), upstreamSide.closed]).toEqual([false, false]);
  stream.close();
});

test('when the client leaves, then the upstream stream is closed at once', async () => {
  const stream = await open(knownToken(), newClient());
  await stream.until((s) => s.retries.length === 1, 5000, 'retry');
  const upstreamSide = upstream.opened.at(-1)!;
  stream.close();
  await eventually(async () => expect(upstreamSide.closed).toBe(true), 10_000);
});

test('an open stream gives its client`s place in flight back: more streams than CLIENT_REQUESTS_IN_FLIGHT from one address, and requests still pass', async () => {
  const client = newClient();
  const token = knownToken();
  const streams = [];
  for (let n = 0; n < 4; n++) {
    const stream = await open(token, client);
    expect(stream.status).toBe(200);
    await stream.until((s) => s.retries.length === 1, 5000, 'retry');
    streams.push(stream);
  }
  const me = await fetch(`${gw.url}/api/v1/events`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });
  expect(me.status).toBe(200);
  for (const stream of streams) stream.close();
});

test('a stream request carrying a body reaches the upstream with that body, so the service does not wait for bytes that never come', async () => {
  const before = upstream.opened.length;
  const body = '{"hello":"stream"}';
  const request = http.request(`${gw.url}/api/v1/events/stream`, {
    method: 'GET',
    headers: { authorization: `Bearer ${knownToken()}`, 'x-forwarded-for': newClient(), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
  request.end(body);
  let timer: NodeJS.Timeout | undefined;
  try {
    // The fake upstream answers once the whole request has arrived: without the body it would wait until the idle cut.
    const tooLate = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000)));
    const response = await Promise.race([answered, tooLate]);
    expect(response.statusCode).toBe(200);
    expect(upstream.opened.slice(before).map((s) => s.body)).toEqual([body]);
  } finally {
    clearTimeout(timer);
    request.destroy();
  }
});

test('when the gateway begins to shut down, then it ends the streams it forwards (cleanly) and closes them upstream', async () => {
  const stream = await open(knownToken(), newClient());
  await stream.until((s) => s.retries.length === 1, 5000, 'retry');
  const upstreamSide = upstream.opened.at(-1)!;
  gw.gateway.endStreams();
  await stream.until((s) => s.ended(), 5000, 'the stream to end');
  await eventually(async () => expect(upstreamSide.closed).toBe(true), 10_000);
});

test('when the upstream answers a stream after the gateway began to shut down, then the gateway ends it at once (cleanly) and closes it upstream', async () => {
  gw.gateway.endStreams();
  const stream = await open(knownToken(), newClient());
  expect(stream.status).toBe(200);
  await stream.until((s) => s.ended(), 5000, 'the stream to end');
  const upstreamSide = upstream.opened.at(-1)!;
  await eventually(async () => expect(upstreamSide.closed).toBe(true), 10_000);
});
