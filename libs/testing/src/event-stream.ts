import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * A live event stream (Server-Sent Events) as a test reads it: opened with fetch, its bytes
 * read as they come and parsed by eventsource-parser (what a browser's EventSource would
 * make of them), kept whole in `raw` for assertions on the exact frames.
 */
export interface OpenedEventStream {
  status: number;
  headers: Headers;
  /** A refusal's body (problem+json), parsed; undefined for a stream. */
  body: any;
  events: EventSourceMessage[];
  comments: string[];
  retries: number[];
  /** Every byte received, as text. */
  raw: () => string;
  /** Whether the server ended the stream (the body's end came). */
  ended: () => boolean;
  /** Resolves once `check` holds, polling; throws what is missing after `timeoutMs`. */
  until: (check: (stream: OpenedEventStream) => boolean, timeoutMs?: number, what?: string) => Promise<void>;
  /** The client leaves (aborts the request). */
  close: () => void;
}

export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenedEventStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  let raw = '';
  let ended = false;
  let body: unknown;
  const stream: OpenedEventStream = {
    status: response.status,
    headers: response.headers,
    body: undefined,
    events,
    comments,
    retries,
    raw: () => raw,
    ended: () => ended,
    async until(check, timeoutMs = 20_000, what = 'the stream to hold what was expected') {
      const deadline = Date.now() + timeoutMs;
      while (!check(stream)) {
        if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; received:\n${raw.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => abort.abort(),
  };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await response.text();
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    stream.body = body;
    ended = true;
    return stream;
  }
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
    onRetry: (ms) => retries.push(ms),
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        raw += text;
        parser.feed(text);
      }
      ended = true;
    } catch {
      // aborted by close(), or the connection cut: `ended` stays false unless the end came
    }
  })();
  return stream;
}
