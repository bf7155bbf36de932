import { EVENT_LIMITS, type PublicEventType } from '@tracker/contracts';
import type { NotificationsDeps } from './deps';
import { eventFrame, KEEP_ALIVE_FRAME, RECONNECT_MS, retryFrame } from './event-stream.rules';
import { cursorOf } from './feed.rules';
import { listEvents } from './list-events.use-case';
import type { FeedPage, Position, RequestContext } from './model';
import { notificationsErrors } from './notifications.errors';

export interface StreamQuery {
  /** Where the client left off (Last-Event-ID or `after`); null: from now. */
  after: Position | null;
  /** null: every type. */
  types: PublicEventType[] | null;
}

/** Where the frames go: the HTTP answer, as the route makes it. */
export interface EventSink {
  /**
   * Sends a frame; resolves once the client may be sent more (a slow client holds the
   * stream back, not memory), or at once when `stop` is aborted: the stream is ending
   * (its time is up, or the replica drains) and must not wait for a client that stopped reading.
   */
  send(frame: string, stop: AbortSignal): Promise<void>;
  /** Aborted once the client has gone. */
  gone: AbortSignal;
}

export interface EventStream {
  /** Sends the frames until the stream's time is up, the client goes or the replica drains; then its slot is free. */
  run(sink: EventSink): Promise<void>;
}

/** Events read at once when the stream catches up (a page of the feed at its largest). */
const PAGE = EVENT_LIMITS.pageMax;

/**
 * GET /api/v1/events/stream: the feed, pushed. Everything that can refuse the stream is
 * decided here, before its first byte: the caller's slot (429 past the replica's or the
 * user's bound), the cursor (410 before the events kept, by reading the first page as the
 * feed does) and where it starts: after the cursor, or without one at the newest event of
 * the workspace (a live view wants what happens from now; the past is the feed's).
 *
 * Then `run` sends `retry`, the events after that position as the feed answers them (each
 * read with the caller's rights of that moment, so a revoke hides the later events), each
 * with the cursor after it as its id, and waits for the replica's watcher to say the
 * workspace's log grew, sending a keep-alive comment when nothing was sent for a while.
 * The stream ends after `maxSeconds`: the client reconnects with Last-Event-ID and is
 * authenticated and placed again.
 */
export async function openEventStream(deps: NotificationsDeps, ctx: RequestContext, query: StreamQuery): Promise<EventStream> {
  const slot = deps.streams.take(`${ctx.workspaceId}:${ctx.userId}`);
  if (slot === 'closing') throw notificationsErrors.streamsClosing();
  if (typeof slot === 'string') throw notificationsErrors.tooManyStreams(slot === 'user_full' ? 'user' : 'replica', slot === 'user_full' ? deps.stream.perUser : deps.stream.maxOpen);
  let first: FeedPage | null = null;
  let position: Position;
  let newest: Position;
  try {
    if (query.after !== null) {
      first = await listEvents(deps, ctx, { after: query.after, types: query.types, limit: PAGE });
    }
    newest = (await deps.log.newest([ctx.workspaceId])).get(ctx.workspaceId) ?? 0n;
    position = first ? first.next : newest;
  } catch (error) {
    slot.release();
    throw error;
  }

  return {
    async run(sink) {
      let target = newest;
      let ended = false;
      let wakeUp: (() => void) | null = null;
      // Ends a send waiting for a stalled client, as `ended` ends the waits between frames.
      const stop = new AbortController();
      const nudge = () => {
        const resolve = wakeUp;
        wakeUp = null;
        resolve?.();
      };
      const end = () => {
        ended = true;
        stop.abort();
        nudge();
      };
      const watching = deps.watcher.watch(ctx.workspaceId, (grown) => {
        if (grown > target) target = grown;
        nudge();
      });
      if (watching.known !== null && watching.known > target) target = watching.known;
      const limit = setTimeout(end, deps.stream.maxSeconds * 1000);
      sink.gone.addEventListener('abort', end);
      slot.signal.addEventListener('abort', end);
      let lastSent = Date.now();
      const send = async (frame: string) => {
        await sink.send(frame, stop.signal);
        lastSent = Date.now();
      };
      try {
        if (sink.gone.aborted || slot.signal.aborted) return;
        await send(retryFrame(RECONNECT_MS));
        const sendAll = async (page: FeedPage) => {
          for (const item of page.items) {
            if (ended) return;
            await send(eventFrame(cursorOf(item.position), item.type, item.payload));
          }
        };
        if (first) await sendAll(first);
        while (!ended) {
          while (position < target && !ended) {
            const page = await listEvents(deps, ctx, { after: position, types: query.types, limit: PAGE });
            await sendAll(page);
            // Nothing after the position any more (what was there is gone): wait for the log to grow.
            if (page.next <= position) break;
            position = page.next;
          }
          if (ended) break;
          let idle: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wakeUp = resolve;
            idle = setTimeout(resolve, Math.max(0, lastSent + deps.stream.keepAliveMs - Date.now()));
          });
          clearTimeout(idle);
          wakeUp = null;
          if (!ended && Date.now() - lastSent >= deps.stream.keepAliveMs) await send(KEEP_ALIVE_FRAME);
        }
      } finally {
        clearTimeout(limit);
        sink.gone.removeEventListener('abort', end);
        slot.signal.removeEventListener('abort', end);
        watching.unwatch();
        slot.release();
      }
    },
  };
}
