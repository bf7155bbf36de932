import { createParser } from 'eventsource-parser';
import type { PublicEvent } from '@tracker/client';
import { browserClock, type Timers } from './session-token';

/**
 * The workspace's live events (GET /api/v1/events/stream, Server-Sent Events) for one open
 * page. Read with fetch, not EventSource: the request carries the page's bearer token,
 * which EventSource cannot send. The server ends a stream now and then (after a few
 * minutes, on a restart); the reader then connects again with `Last-Event-ID`, so no event
 * is missed in between. It never holds more than one connection, and `close` ends it.
 *
 * - 401: `fetch` (the page's authorized fetch) has already renewed the token once and
 *   tried again, so a 401 here means the session is over: the reader stops.
 * - 410 `cursor_expired`: the last id is older than the events kept; the reader starts
 *   afresh without it, and `onStart` tells the page to read its data again.
 * - 429: it waits as long as `Retry-After` says.
 * - Anything else that fails (the network, a 5xx, the gateway without the route): it
 *   tries again later, waiting longer each time (with jitter), up to `MAX_BACKOFF_MS`.
 */
export interface EventStreamOptions {
  /** The stream's path, with its `types` filter. */
  url: string;
  /** Sends a request with the page's token (renewed once on a 401). */
  fetch: (request: Request) => Promise<Response>;
  /** Each event, in the stream's order. */
  onEvent: (event: PublicEvent) => void;
  /**
   * A connection opened without `Last-Event-ID`: it streams from now, so what the page read
   * before may have missed events. The first connection, and a new start after a 410.
   */
  onStart?: () => void;
  /**
   * The first connection opened (called after its `onStart`), or the first attempt failed:
   * the page need not wait for the stream any longer.
   */
  onSettled?: () => void;
  timers?: Timers;
  /** 0 to 1, for the backoff's jitter. */
  random?: () => number;
}

export type { Timers };

/** What the stream waits before connecting again until the server says otherwise (its `retry:`). */
export const DEFAULT_RETRY_MS = 2_000;
/** The longest wait between failed attempts. */
export const MAX_BACKOFF_MS = 60_000;
/**
 * A connection silent this long (no event, no keep-alive comment) is taken for dead (a
 * laptop that slept, a proxy that dropped it) and replaced.
 */
export const SILENCE_MS = 90_000;

export interface EventStream {
  close: () => void;
  /** The id of the last event received: where a new connection resumes. */
  readonly lastEventId: string | undefined;
}

/** Why a connection ended, and so what the next attempt waits. */
type Ending = { kind: 'ended' } | { kind: 'failed' } | { kind: 'stop' } | { kind: 'expired' } | { kind: 'limited'; seconds: number | undefined };

export function openEventStream(options: EventStreamOptions): EventStream {
  const timers = options.timers ?? browserClock;
  const random = options.random ?? Math.random;
  let closed = false;
  let lastEventId: string | undefined;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  let settled = false;
  let controller: AbortController | undefined;
  let waiting: { handle: unknown; resolve: () => void } | undefined;

  const settle = () => {
    if (settled) return;
    settled = true;
    options.onSettled?.();
  };

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const handle = timers.setTimeout(() => {
        waiting = undefined;
        resolve();
      }, ms);
      waiting = { handle, resolve };
    });

  /** One connection, from the request to the end of its body. */
  const connect = async (): Promise<Ending> => {
    controller = new AbortController();
    const resumeFrom = lastEventId;
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (resumeFrom !== undefined) headers['Last-Event-ID'] = resumeFrom;
    let response: Response;
    try {
      response = await options.fetch(new Request(options.url, { headers, signal: controller.signal }));
    } catch {
      return { kind: 'failed' };
    }
    if (closed) return { kind: 'stop' };
    if (response.status === 401) return { kind: 'stop' };
    if (response.status === 410) return { kind: 'expired' };
    if (response.status === 429) {
      const seconds = Number(response.headers.get('Retry-After'));
      return { kind: 'limited', seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : undefined };
    }
    if (!response.ok || !response.body || !/^text\/event-stream/i.test(response.headers.get('Content-Type') ?? '')) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'failed' };
    }

    failures = 0;
    if (resumeFrom === undefined) options.onStart?.();
    settle();

    const parser = createParser({
      onEvent(message) {
        if (message.id !== undefined) lastEventId = message.id;
        let event: PublicEvent;
        try {
          event = JSON.parse(message.data) as PublicEvent;
        } catch {
          return; // not an event of ours: skipped, the stream goes on
        }
        if (!event || typeof event !== 'object' || typeof event.type !== 'string') return;
        try {
          options.onEvent(event);
        } catch {
          // A page's handler that throws must not end the stream.
        }
      },
      onRetry(ms) {
        if (ms > 0) retryMs = ms;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let silence: unknown;
    const watch = () => {
      timers.clearTimeout(silence);
      silence = timers.setTimeout(() => controller?.abort(), SILENCE_MS);
    };
    try {
      watch();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { kind: 'ended' };
        watch();
        parser.feed(value);
      }
    } catch {
      return closed ? { kind: 'stop' } : { kind: 'failed' };
    } finally {
      timers.clearTimeout(silence);
      reader.cancel().catch(() => undefined);
    }
  };

  /** Exponential from the server's retry, capped, with up to a quarter of jitter either way. */
  const backoff = () => {
    const base = Math.min(MAX_BACKOFF_MS, retryMs * 2 ** Math.min(failures - 1, 10));
    return Math.round(base * (0.75 + random() * 0.5));
  };

  const run = async () => {
    while (!closed) {
      const ending = await connect();
      if (closed) break;
      switch (ending.kind) {
        case 'stop':
          settle();
          closed = true;
          break;
        case 'ended':
          await wait(retryMs);
          break;
        case 'expired':
          // Too old to resume from: a new start, and the page reads its data again.
          lastEventId = undefined;
          await wait(retryMs);
          break;
        case 'limited':
          settle();
          failures++;
          await wait(ending.seconds !== undefined ? ending.seconds * 1000 : backoff());
          break;
        case 'failed':
          settle();
          failures++;
          await wait(backoff());
          break;
      }
    }
  };
  void run();

  return {
    close() {
      if (closed) return;
      closed = true;
      controller?.abort();
      if (waiting) {
        timers.clearTimeout(waiting.handle);
        waiting.resolve();
        waiting = undefined;
      }
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}

/** The stream's path for these types (`issue.*` patterns allowed). */
export const streamUrl = (types: readonly string[]) => `/api/v1/events/stream${types.length ? `?types=${types.map(encodeURIComponent).join(',')}` : ''}`;
