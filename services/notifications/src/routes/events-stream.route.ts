import type { Response, Router } from 'express';
import { contextOf } from '@tracker/authz';
import { logOf, markStreaming } from '@tracker/kit';
import type { NotificationsDeps } from '../domain/deps';
import { openEventStream } from '../domain/stream-events.use-case';
import { parseStreamQuery } from './feed-query';

/** The live stream's headers, fixed (the web pages rely on them): no cache, no proxy buffering. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * GET /api/v1/events/stream: Server-Sent Events (domain/stream-events.use-case.ts). A
 * refusal (422, 410, 429) is a problem+json answer like any other, given before the first
 * byte of the stream; once it has begun, a failure ends the stream and the client
 * reconnects with Last-Event-ID.
 */
export function eventsStreamRoutes(router: Router, deps: NotificationsDeps): void {
  router.get('/api/v1/events/stream', async (req, res) => {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const query = parseStreamQuery(req.query as Record<string, unknown>, req.header('last-event-id'));
    const stream = await openEventStream(deps, contextOf(res), query);
    markStreaming(res);
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    // One signal for the stream (its `stop` is the same for every frame), not one per frame.
    let over: AbortSignal | undefined;
    try {
      await stream.run({ gone: gone.signal, send: (frame, stop) => write(res, frame, (over ??= AbortSignal.any([gone.signal, stop]))) });
    } catch (err) {
      logOf(res).warn({ err }, 'live event stream ended by a failure; the client reconnects');
    }
    res.end();
  });
}

/** Writes a frame; when the socket's buffer is full, resolves once it drained, or the client left or the stream ends (`over`). */
function write(res: Response, frame: string, over: AbortSignal): Promise<void> {
  if (over.aborted || res.writableEnded) return Promise.resolve();
  if (res.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      over.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    over.addEventListener('abort', done, { once: true });
  });
}
