import { DEFAULT_RETRY_MS, MAX_BACKOFF_MS, openEventStream, streamUrl, type EventStream, type Timers } from '../app/src/event-stream';
import { fakeClock, settle as settleFor } from './fake-clock';

/** A stream's chunks and the promises they free take several turns of the event loop. */
const SETTLE_ROUNDS = 20;

/**
 * The page's reader of the live stream, against a hand-driven server: each request the
 * reader makes is answered by the test, its body written a chunk at a time; a hand-driven
 * clock stands in for the waits between connections.
 */
function fakeTimers() {
  const { clock, advance } = fakeClock({ settleRounds: SETTLE_ROUNDS });
  const timers: Timers = clock;
  return { timers, advance };
}

/** Lets the streams and promises in flight run. */
const settle = () => settleFor(SETTLE_ROUNDS);

interface Sent {
  request: Request;
  /** Answers it as a stream; write to it with `write`, end it with `end`. */
  stream: () => void;
  answer: (status: number, headers?: Record<string, string>) => void;
  write: (text: string | Uint8Array) => void;
  end: () => void;
  aborted: () => boolean;
}

function fakeServer() {
  const sent: Sent[] = [];
  let open = 0;
  let mostOpen = 0;
  const fetch = (request: Request) =>
    new Promise<Response>((resolve, reject) => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let streaming = false;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
        },
        cancel: () => {
          if (streaming) open--;
          streaming = false;
        },
      });
      const close = () => {
        if (streaming) open--;
        streaming = false;
      };
      request.signal.addEventListener('abort', () => {
        reject(new DOMException('aborted', 'AbortError'));
        if (streaming) controller.error(new DOMException('aborted', 'AbortError'));
        close();
      });
      sent.push({
        request,
        stream: () => {
          streaming = true;
          open++;
          mostOpen = Math.max(mostOpen, open);
          resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
        },
        answer: (status, headers = {}) =>
          resolve(new Response(JSON.stringify({ status, code: `http_${status}` }), { status, headers: { 'Content-Type': 'application/problem+json', ...headers } })),
        write: (text) => controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text),
        end: () => {
          controller.close();
          close();
        },
        aborted: () => request.signal.aborted,
      });
    });
  return { fetch, sent, mostOpen: () => mostOpen, open: () => open };
}

const event = (id: string, type = 'issue.updated', extra: Record<string, unknown> = {}) => ({ id, type, timestamp: '2026-11-29T10:00:00Z', workspace_id: 1, data: { actor_id: 2, ...extra } });
const frame = (cursor: string, body: ReturnType<typeof event>) => `id: ${cursor}\nevent: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`;

let stream: EventStream | undefined;
afterEach(() => stream?.close());

function start(extra: { onStart?: () => void; onSettled?: () => void } = {}) {
  const server = fakeServer();
  const clock = fakeTimers();
  const events: unknown[] = [];
  stream = openEventStream({ url: `http://tracker.test${streamUrl(['issue.*', 'comment.added'])}`, fetch: server.fetch, onEvent: (e) => events.push(e), timers: clock.timers, random: () => 0.5, ...extra });
  return { server, clock, events };
}

describe('reading the stream', () => {
  test('when frames arrive split anywhere (mid-field, mid-character), then each event is handed over whole, once; comments and retry are not events', async () => {
    const { server, events } = start();
    await settle();
    expect(server.sent).toHaveLength(1);
    expect(server.sent[0]!.request.url).toMatch(/\/api\/v1\/events\/stream\?types=issue\.\*,comment\.added$/);
    expect(server.sent[0]!.request.headers.get('Last-Event-ID')).toBeNull();
    expect(server.sent[0]!.request.headers.get('Accept')).toBe('text/event-stream');
    server.sent[0]!.stream();
    await settle();

    const first = event('e1', 'issue.updated', { title: 'Café crème' });
    const whole = new TextEncoder().encode(`retry: 2000\n\n: keep-alive\n\n${frame('c1', first)}`);
    // "é" is two bytes in UTF-8: cut between them, and mid-field elsewhere.
    const cut = whole.indexOf(0xc3) + 1;
    server.sent[0]!.write(whole.slice(0, 30));
    await settle();
    server.sent[0]!.write(whole.slice(30, cut));
    await settle();
    expect(events).toEqual([]);
    server.sent[0]!.write(whole.slice(cut));
    await settle();
    expect(events).toEqual([first]);
    expect(stream!.lastEventId).toBe('c1');

    server.sent[0]!.write('id: c2\nevent: comment.added\nda');
    server.sent[0]!.write(`ta: ${JSON.stringify(event('e2', 'comment.added'))}\n`);
    await settle();
    expect(events).toHaveLength(1);
    server.sent[0]!.write('\n: keep-alive\n\n');
    await settle();
    expect(events).toEqual([first, event('e2', 'comment.added')]);
    expect(stream!.lastEventId).toBe('c2');
  });

  test('when a frame`s data is not JSON, then it is skipped and the stream goes on', async () => {
    const { server, events } = start();
    await settle();
    server.sent[0]!.stream();
    server.sent[0]!.write('id: c1\nevent: issue.updated\ndata: {oops\n\n');
    server.sent[0]!.write(frame('c2', event('e2')));
    await settle();
    expect(events).toEqual([event('e2')]);
    expect(stream!.lastEventId).toBe('c2');
  });
});

describe('connecting again', () => {
  test('when the server ends the stream, then the reader connects again after the retry delay, resuming from the last id; only the first connection is a new start', async () => {
    const onStart = jest.fn();
    const { server, clock, events } = start({ onStart });
    await settle();
    server.sent[0]!.stream();
    await settle();
    expect(onStart).toHaveBeenCalledTimes(1);
    server.sent[0]!.write(`retry: 3000\n\n${frame('c7', event('e7'))}`);
    server.sent[0]!.end();
    await settle();

    await clock.advance(2_999);
    expect(server.sent).toHaveLength(1);
    await clock.advance(1);
    expect(server.sent).toHaveLength(2);
    expect(server.sent[1]!.request.headers.get('Last-Event-ID')).toBe('c7');
    server.sent[1]!.stream();
    server.sent[1]!.write(frame('c8', event('e8')));
    await settle();
    expect(events).toEqual([event('e7'), event('e8')]);
    expect(onStart).toHaveBeenCalledTimes(1);
    expect(server.mostOpen()).toBe(1);
  });

  test('when the last id is too old (410), then the reader starts afresh without Last-Event-ID and tells the page to read its data again', async () => {
    const onStart = jest.fn();
    const { server, clock } = start({ onStart });
    await settle();
    server.sent[0]!.stream();
    server.sent[0]!.write(frame('c1', event('e1')));
    server.sent[0]!.end();
    await settle();
    await clock.advance(DEFAULT_RETRY_MS);
    expect(server.sent[1]!.request.headers.get('Last-Event-ID')).toBe('c1');
    server.sent[1]!.answer(410);
    await settle();
    await clock.advance(DEFAULT_RETRY_MS);
    expect(server.sent).toHaveLength(3);
    expect(server.sent[2]!.request.headers.get('Last-Event-ID')).toBeNull();
    expect(onStart).toHaveBeenCalledTimes(1);
    server.sent[2]!.stream();
    await settle();
    expect(onStart).toHaveBeenCalledTimes(2);
  });

  test('when attempts fail (network, 5xx, no route), then each waits longer than the last, up to a bound; a connection that opens resets it', async () => {
    const { server, clock } = start();
    const waits: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      await settle();
      const at = server.sent.length;
      server.sent[at - 1]!.answer(attempt % 2 ? 503 : 404);
      await settle();
      let waited = 0;
      while (server.sent.length === at) {
        await clock.advance(500);
        waited += 500;
      }
      waits.push(waited);
    }
    // 2, 4, 8, 16, 32 s, then the bound (jitter at its middle here).
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, MAX_BACKOFF_MS, MAX_BACKOFF_MS]);

    server.sent.at(-1)!.stream();
    server.sent.at(-1)!.end();
    await settle();
    const at = server.sent.length;
    await clock.advance(DEFAULT_RETRY_MS);
    expect(server.sent).toHaveLength(at + 1);
  });

  test('when the server says too many (429), then the reader waits what Retry-After says', async () => {
    const { server, clock } = start();
    await settle();
    server.sent[0]!.answer(429, { 'Retry-After': '7' });
    await settle();
    await clock.advance(6_999);
    expect(server.sent).toHaveLength(1);
    await clock.advance(1);
    expect(server.sent).toHaveLength(2);
  });

  test('when the session is over (401 even after the renewal), then the reader stops for good', async () => {
    const onSettled = jest.fn();
    const { server, clock } = start({ onSettled });
    await settle();
    server.sent[0]!.answer(401);
    await settle();
    await clock.advance(10 * MAX_BACKOFF_MS);
    expect(server.sent).toHaveLength(1);
    expect(onSettled).toHaveBeenCalledTimes(1);
  });

  test('when a connection stays silent (not even a keep-alive) for long, then it is dropped and replaced, resuming from the last id', async () => {
    const { server, clock } = start();
    await settle();
    server.sent[0]!.stream();
    server.sent[0]!.write(frame('c3', event('e3')));
    await settle();
    await clock.advance(89_000);
    server.sent[0]!.write(': keep-alive\n\n');
    await settle();
    await clock.advance(89_000);
    expect(server.sent[0]!.aborted()).toBe(false);
    await clock.advance(1_000);
    expect(server.sent[0]!.aborted()).toBe(true);
    await clock.advance(MAX_BACKOFF_MS);
    expect(server.sent).toHaveLength(2);
    expect(server.sent[1]!.request.headers.get('Last-Event-ID')).toBe('c3');
    expect(server.mostOpen()).toBe(1);
  });
});

describe('stopping', () => {
  test('when the page closes it (unmount, sign-out) mid-stream, then the connection is aborted and no other is made', async () => {
    const { server, clock, events } = start();
    await settle();
    server.sent[0]!.stream();
    server.sent[0]!.write(frame('c1', event('e1')));
    await settle();
    stream!.close();
    await settle();
    expect(server.sent[0]!.aborted()).toBe(true);
    expect(server.open()).toBe(0);
    await clock.advance(10 * MAX_BACKOFF_MS);
    expect(server.sent).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  test('when the page closes it while it waits to connect again, then it never connects again', async () => {
    const { server, clock } = start();
    await settle();
    server.sent[0]!.answer(503);
    await settle();
    stream!.close();
    await clock.advance(10 * MAX_BACKOFF_MS);
    expect(server.sent).toHaveLength(1);
  });

  test('when the page closes it before the server answered, then the request is aborted', async () => {
    const { server, clock } = start();
    await settle();
    stream!.close();
    await settle();
    expect(server.sent[0]!.aborted()).toBe(true);
    await clock.advance(10 * MAX_BACKOFF_MS);
    expect(server.sent).toHaveLength(1);
  });

  test('the first connection, or the first failure, settles the page`s wait for the stream, once', async () => {
    const onSettled = jest.fn();
    const { server, clock } = start({ onSettled });
    await settle();
    expect(onSettled).not.toHaveBeenCalled();
    server.sent[0]!.answer(503);
    await settle();
    expect(onSettled).toHaveBeenCalledTimes(1);
    await clock.advance(DEFAULT_RETRY_MS);
    server.sent[1]!.stream();
    await settle();
    expect(onSettled).toHaveBeenCalledTimes(1);
  });
});
