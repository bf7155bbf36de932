import { useEffect, useRef, useState } from 'react';
import type { PublicEvent } from '@tracker/client';
import { useAuth } from './auth';
import { openEventStream, streamUrl } from './event-stream';

/** How long a page waits for the stream to open before it reads its data anyway. */
const WAIT_FOR_STREAM_MS = 3_000;

export interface LiveEvents {
  /**
   * Resolves once the stream is open (or failed, or took too long): a page reads its data
   * after it, so no change made between its read and the stream's start is missed.
   */
  ready: Promise<void>;
}

/**
 * The workspace's live events of `types` while the page is open: one connection per page,
 * closed when the page goes (unmount) or the person signs out. `onEvent` gets each event;
 * `onStart` is called when the stream starts afresh after the page read its data (a
 * 410, or a stream that opened only after the page stopped waiting for it): whatever the
 * page holds may have missed changes, so it reads them again. The latest callbacks are
 * used; they need not be stable.
 */
export function useEventStream(types: readonly string[], onEvent: (event: PublicEvent) => void, onStart: () => void): LiveEvents {
  const { state, fetchApi } = useAuth();
  const handlers = useRef({ onEvent, onStart });
  handlers.current = { onEvent, onStart };
  const [gate] = useState(() => {
    let open!: () => void;
    const ready = new Promise<void>((resolve) => (open = resolve));
    return { ready, open, opened: false };
  });
  const signedIn = state.status === 'signed-in';
  const typeList = types.join(',');

  useEffect(() => {
    if (!signedIn) return;
    const openGate = () => {
      gate.opened = true;
      gate.open();
    };
    const limit = setTimeout(openGate, WAIT_FOR_STREAM_MS);
    const stream = openEventStream({
      url: new URL(streamUrl(typeList ? typeList.split(',') : []), window.location.origin).href,
      fetch: fetchApi,
      onEvent: (event) => handlers.current.onEvent(event),
      onStart: () => {
        // The page's first read waits for this start: nothing to read again.
        if (gate.opened) handlers.current.onStart();
        else openGate();
      },
      onSettled: openGate,
    });
    return () => {
      clearTimeout(limit);
      stream.close();
    };
  }, [signedIn, typeList, fetchApi, gate]);

  return { ready: gate.ready };
}
