import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './api';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type IssueDetails = Schemas['IssueDetails'];
export type Issue = Schemas['Issue'];
/** The fields of an issue update, without `version`: the safe update sends the one it read. */
export type IssueChanges = Omit<Schemas['IssueUpdate'], 'version'>;
export type TrackerClient = Client<paths>;

/** A problem+json answer (RFC 9457) with Tracker's stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: Array<{ path: string; message: string }>;
  [field: string]: unknown;
}

export interface TrackerClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:8080` (the paths carry `/api/v1`). */
  baseUrl: string;
  /** A personal token (`trk_…`). */
  token: string;
  fetch?: ClientOptions['fetch'];
  /** Extra middleware (logging, checks), run for every request. */
  middleware?: Middleware[];
  /**
   * How many times a POST is sent again after a network failure or a 503, with the same
   * Idempotency-Key, so it is written once however many times it is sent (the POSTs of
   * POSTS_SENT_ONCE are never sent again). Default 2; 0 sends once.
   */
  postRetries?: number;
}

/**
 * A typed client: `client.GET('/api/v1/issues/{key}', { params: { path: { key } } })`
 * answers `{ data }` on success or `{ error }` (a Problem) otherwise, typed from the
 * OpenAPI document. Every POST that takes an Idempotency-Key carries one (a new UUID, unless
 * the caller gave one) and is retried with it after a lost connection or a 503.
 */
export function createTrackerClient(options: TrackerClientOptions): TrackerClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: postsOnce(options.fetch ?? globalThis.fetch, options.postRetries ?? 2),
    headers: { Authorization: `Bearer ${options.token}` },
  });
  for (const middleware of options.middleware ?? []) client.use(middleware);
  return client;
}

/**
 * The POSTs that take no Idempotency-Key (an invitation, a setup link, a personal token, a
 * webhook, a ping, a retried delivery): the server would not replay a repeat but write
 * again (a second token, a second webhook), so they are sent
 * once, as given, and a failure is the caller's to judge (each operation's description says
 * how). The client's test holds this list to the document.
 */
export const POSTS_SENT_ONCE = [
  '/api/v1/users',
  '/api/v1/users/{user_id}/setup-link',
  '/api/v1/tokens',
  '/api/v1/webhooks',
  '/api/v1/webhooks/{webhook_id}/ping',
  '/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
] as const;
const SENT_ONCE = POSTS_SENT_ONCE.map((template) => new RegExp(`${template.replace(/\{\w+\}/g, '[^/]+')}$`));

const RETRY_DELAY_MS = 200;
/** The longest a retry waits, whatever `Retry-After` says. */
const MAX_RETRY_WAIT_MS = 10_000;

/**
 * A fetch that gives each POST an Idempotency-Key and sends it again, with the same key,
 * when the connection fails or the answer is 503 (after its `Retry-After`, at most 10 s):
 * the server replays the first answer of a write that did happen (`Idempotent-Replayed:
 * true`) instead of writing twice. Other methods, and the POSTS_SENT_ONCE, are sent once;
 * a cancelled request (its AbortSignal) is not sent again.
 */
type Send = (request: Request) => Promise<Response>;

/** What newIdempotencyKey needs of Web Crypto (`globalThis.crypto` in Node and in a browser). */
export interface RandomSource {
  getRandomValues: <T extends Uint8Array>(array: T) => T;
  randomUUID?: () => string;
}

/**
 * A random (version 4) UUID. `crypto.randomUUID` exists only in a secure context (https, or
 * localhost), and a page served over plain http elsewhere still posts: there the key is
 * made from `crypto.getRandomValues`, which every context has.
 */
export function newIdempotencyKey(cryptoApi: RandomSource = globalThis.crypto): string {
  if (typeof cryptoApi.randomUUID === 'function') return cryptoApi.randomUUID();
  const bytes = cryptoApi.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte: number) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function postsOnce(send: Send, retries: number): Send {
  return async (request) => {
    if (request.method !== 'POST' || SENT_ONCE.some((path) => path.test(new URL(request.url).pathname))) return send(request);
    if (!request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', newIdempotencyKey());
    for (let attempt = 0; ; attempt++) {
      let waitMs = RETRY_DELAY_MS * 2 ** attempt;
      try {
        const response = await send(request.clone());
        if (response.status !== 503 || attempt >= retries) return response;
        const retryAfter = Number(response.headers.get('Retry-After'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) waitMs = Math.max(waitMs, retryAfter * 1000);
        await response.body?.cancel();
      } catch (error) {
        if (attempt >= retries || request.signal.aborted) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, MAX_RETRY_WAIT_MS)));
    }
  };
}

/** An answer that was not the operation's success. */
export class TrackerApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.code}: ${problem.detail}`);
    this.name = 'TrackerApiError';
  }
}

/** Every attempt of a safe update met a newer version (412 or 409 each time). */
export class UpdateConflictError extends Error {
  constructor(
    readonly key: string,
    readonly attempts: number,
  ) {
    super(`${key} changed under every one of ${attempts} attempts; giving up`);
    this.name = 'UpdateConflictError';
  }
}

export interface SafeUpdateOptions {
  /** Reads and PATCHes at most this many times (re-read and reconsider, not repeat without limit: docs/decisions.md). Default 5. */
  maxAttempts?: number;
}

/**
 * Updates an issue without losing anyone else's change: reads it, asks `change` what
 * to change given what it read (null: nothing), and PATCHes that under `If-Match` with
 * the read's ETag (and the version it read in the body). On 412 `precondition_failed` or
 * 409 `version_conflict` it reads again and asks `change` again, a bounded number of
 * times. Returns the issue after the change (or as read, when nothing changed).
 */
export async function updateIssueSafely(
  client: TrackerClient,
  key: string,
  change: (issue: IssueDetails) => IssueChanges | null | Promise<IssueChanges | null>,
  options: SafeUpdateOptions = {},
): Promise<Issue | IssueDetails> {
  const maxAttempts = options.maxAttempts ?? 5;
  const path = { key };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const read = await client.GET('/api/v1/issues/{key}', { params: { path } });
    if (read.error) throw new TrackerApiError(read.response.status, read.error as Problem);
    const changes = await change(read.data);
    if (changes === null) return read.data;
    const etag = read.response.headers.get('ETag');
    const written = await client.PATCH('/api/v1/issues/{key}', {
      params: { path },
      headers: etag ? { 'If-Match': etag } : {},
      body: { ...changes, version: read.data.version },
    });
    if (written.data) return written.data;
    const problem = written.error as Problem;
    if (problem.code !== 'precondition_failed' && problem.code !== 'version_conflict') throw new TrackerApiError(written.response.status, problem);
  }
  throw new UpdateConflictError(key, maxAttempts);
}

export type Statistics = Schemas['StatisticsResult'];

export interface DashboardStatisticsOptions {
  /** How many requests are in flight at once. Default 6: the widgets are independent, and the statistics service answers several at a time. */
  concurrency?: number;
}

/**
 * The statistics of each widget's filters (`POST /api/v1/statistics`), in the widgets'
 * order: the requests a dashboard's widgets need, sent `concurrency` at a time rather than
 * one after another. The first error ends it (a TrackerApiError), as a dashboard whose
 * widgets cannot all be drawn is reported once. For widgets not saved (yet); a saved
 * dashboard is drawn quicker by one request, `GET /api/v1/dashboards/{dashboard_id}/statistics`.
 */
export async function dashboardStatistics(
  client: TrackerClient,
  widgets: ReadonlyArray<{ filters: Schemas['WidgetFilters'] }>,
  options: DashboardStatisticsOptions = {},
): Promise<Statistics[]> {
  const results = new Array<Statistics>(widgets.length);
  let next = 0;
  const worker = async () => {
    while (next < widgets.length) {
      const index = next++;
      const answer = await client.POST('/api/v1/statistics', { body: widgets[index]!.filters as Schemas['Filters'] });
      if (answer.error) throw new TrackerApiError(answer.response.status, answer.error as Problem);
      results[index] = answer.data;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 6, widgets.length)) }, worker));
  return results;
}

export type PublicEvent = Schemas['PublicEvent'];
export type EventType = PublicEvent['type'];

export interface EventsOptions {
  /** Where to start: a `next_cursor` kept from an earlier read. Absent: the oldest event kept. */
  after?: string;
  /** Only these types; a pattern ending in `*` (`issue.*`) selects a family. Absent: every type. */
  types?: ReadonlyArray<EventType | `${string}*`>;
  /** Events per request, 1 to 500. Default 500: a catch-up takes as few requests as it can. */
  limit?: number;
  signal?: AbortSignal;
}

/** The events of the feed as one sequence, and where it stands. */
export interface EventFeed extends AsyncIterable<PublicEvent> {
  /**
   * The cursor to go on from later: the `next_cursor` of the last page whose events were all
   * handed out (the `after` given, until one was). Keep it, and pass it as `after` next
   * time; should the iteration stop within a page, that page's events come again then (drop
   * those seen by their `id`).
   */
  readonly cursor: string | undefined;
}

/**
 * Every event the caller may read after `after` (GET /api/v1/events), oldest first,
 * following `next_cursor` page after page until the feed is caught up: until a page answers
 * the cursor it was sent. Then it ends; `feed.cursor` is where to go on from later.
 *
 * ```ts
 * const feed = events(client, { after: saved, types: ['issue.*'] });
 * for await (const event of feed) handle(event);
 * saved = feed.cursor;
 * ```
 *
 * A refusal throws a TrackerApiError: `cursor_expired` (410) means the cursor is older than
 * the events kept (7 days), and the caller starts again without `after` after re-reading
 * what it keeps through the API.
 */
export function events(client: TrackerClient, options: EventsOptions = {}): EventFeed {
  let cursor = options.after;
  const query = {
    limit: options.limit ?? 500,
    ...(options.types && options.types.length > 0 ? { types: options.types.join(',') } : {}),
  };
  return {
    get cursor() {
      return cursor;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const sent = cursor;
        const answer = await client.GET('/api/v1/events', { params: { query: { ...query, ...(sent === undefined ? {} : { after: sent }) } }, signal: options.signal });
        if (answer.error) throw new TrackerApiError(answer.response.status, answer.error as Problem);
        yield* answer.data.items;
        cursor = answer.data.next_cursor;
        if (cursor === sent) return;
      }
    },
  };
}
