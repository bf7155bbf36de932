import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { IDEMPOTENCY, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey } from '@tracker/contracts';
import { AppError, invalid } from './errors';
import { principalOf, sendJsonText } from './app';
import type { Logger } from './logger';
import { prepared, writeAtCommit, type Sql } from './postgres';

/**
 * Safe retries of a POST that writes (docs/decisions.md: Retries and conditional requests). A request carrying
 * `Idempotency-Key` claims the key in the write's own transaction and stores its answer
 * there too, so the write and the record of it commit or vanish together:
 * - a repeat (same caller, key and request) within IDEMPOTENCY.replayHours gets the stored
 *   answer again, with `Idempotent-Replayed: true`, and writes nothing (the write's own
 *   answer says `false`);
 * - a concurrent repeat waits on the claimed key (the primary key's row lock) until the
 *   first commits, then replays its answer; if the first rolled back, it writes itself;
 * - the same key with another request is 422 `idempotency_key_reused`;
 * - a refusal stores nothing (its transaction rolls back): a retry is judged afresh.
 * Keys are scoped to the workspace and user, so two callers never share one.
 * Each service keeps the table `idempotent_requests` in its own schema.
 */

export interface IdempotentRequest {
  workspaceId: number;
  userId: number;
  key: string;
  /** SHA-256 of the method, the path and the body's JSON with its keys sorted. */
  fingerprint: string;
}

export interface StoredAnswer {
  status: number;
  /** The answer's JSON text, replayed byte for byte. */
  body: string;
}

/** What a write needs to run once: its claim, and how its result becomes the answer to store. */
export interface Once<R> {
  request: IdempotentRequest;
  answer: (result: R) => StoredAnswer;
}

/** Thrown inside the write's transaction when the key holds an earlier answer: rolls the duplicate back. */
export class IdempotentReplay extends Error {
  constructor(readonly stored: StoredAnswer) {
    super('replaying the stored answer of an earlier request with this Idempotency-Key');
  }
}

const reused = () =>
  new AppError(
    'idempotency_key_reused',
    `This Idempotency-Key was used within the last ${IDEMPOTENCY.replayHours} hours for another request (another operation, path or body). Use a new key for a new request.`,
  );

/** The request's key, checked; undefined when it carries none. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const value = req.header(IDEMPOTENCY_KEY_HEADER);
  if (value === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(value);
  if (!parsed.success) {
    throw invalid([{ path: IDEMPOTENCY_KEY_HEADER, message: parsed.error.issues[0]!.message }], 'The Idempotency-Key header is not valid.');
  }
  return value;
}

/** JSON with object keys sorted, so a client that reorders fields still repeats "the same body". */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256').update(`${method} ${path}\n${canonicalJson(body ?? null)}`).digest('base64url');

const WITHIN_WINDOW = `created_at >= now() - make_interval(hours => ${IDEMPOTENCY.replayHours})`;

/** Where a service keeps its keys: looked up before a write runs, so most repeats cost one read. */
export interface IdempotentRequests {
  /** The answer stored under the request's key within the window, if any; another request under it is 422. */
  answered(request: IdempotentRequest): Promise<StoredAnswer | null>;
}

export const idempotentRequests = (sql: Sql): IdempotentRequests => ({ answered: (request) => storedAnswer(sql, request) });

async function storedAnswer(sql: Sql, request: IdempotentRequest): Promise<StoredAnswer | null> {
  const [row] = await prepared<{ fingerprint: string; status: number | null; answer: string | null }>(
    sql,
    'idempotency.find',
    `SELECT fingerprint, status, answer FROM idempotent_requests
      WHERE workspace_id = $1 AND user_id = $2 AND key = $3 AND ${WITHIN_WINDOW}`,
    [request.workspaceId, request.userId, request.key],
  );
  if (!row) return null;
  if (row.fingerprint !== request.fingerprint) throw reused();
  // A claim without an answer is another transaction's, still running: not ours to replay.
  return row.status === null || row.answer === null ? null : { status: row.status, body: row.answer };
}

/**
 * Runs `write` inside the caller's transaction (on `client`) once per key: claims the key
 * first, stores the answer last. A key claimed by a committed request throws
 * IdempotentReplay (or 422 for another request), so the transaction rolls back.
 */
export async function runOnce<R>(client: Sql, once: Once<R> | undefined, write: () => Promise<R>): Promise<R> {
  if (!once) return write();
  const { workspaceId, userId, key, fingerprint } = once.request;
  // An expired row under the key is taken over; a live one makes this insert wait for its transaction.
  const claimed = await prepared(
    client,
    'idempotency.claim',
    `INSERT INTO idempotent_requests (workspace_id, user_id, key, fingerprint) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, user_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, status = NULL, answer = NULL, created_at = now()
       WHERE idempotent_requests.created_at < now() - make_interval(hours => ${IDEMPOTENCY.replayHours})
     RETURNING 1`,
    [workspaceId, userId, key, fingerprint],
  );
  if (claimed.length === 0) {
    const stored = await storedAnswer(client, once.request);
    if (stored) throw new IdempotentReplay(stored);
    // Cannot come from this code (claim and answer commit together); never a bare 500 for it.
    throw new AppError('service_unavailable', 'This Idempotency-Key is held by a request without an answer. Retry later.', { headers: { 'Retry-After': '5' } });
  }
  const result = await write();
  const { status, body } = once.answer(result);
  // Written with the COMMIT: the claim above already holds the key for this transaction.
  await writeAtCommit(client, {
    name: 'idempotency.save',
    text: `UPDATE idempotent_requests SET status = $4, answer = $5 WHERE workspace_id = $1 AND user_id = $2 AND key = $3`,
    values: [workspaceId, userId, key, status, body],
  });
  return result;
}

/**
 * A POST route's answer, carried out once per Idempotency-Key: `write` gets the Once to
 * hand to its transaction (runOnce), or undefined when the request carries no key.
 * `render` turns the result into the JSON answer, sent with `status`.
 */
export async function answerOnce<R>(
  req: Request,
  res: Response,
  requests: IdempotentRequests,
  how: { status: number; render: (result: R) => unknown },
  write: (once: Once<R> | undefined) => Promise<R>,
): Promise<void> {
  const key = idempotencyKeyOf(req);
  if (key === undefined) {
    sendJsonText(res.status(how.status), JSON.stringify(how.render(await write(undefined))));
    return;
  }
  const { workspaceId, userId } = principalOf(res);
  const request = { workspaceId, userId, key, fingerprint: requestFingerprint(req.method, req.originalUrl, req.body) };
  try {
    // Most repeats are answered here, before the use case runs any check or lock.
    const earlier = await requests.answered(request);
    if (earlier) return replay(res, earlier);
    let answer: StoredAnswer | undefined;
    const result = await write({ request, answer: (r) => (answer = { status: how.status, body: JSON.stringify(how.render(r)) }) });
    res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'false');
    sendJsonText(res.status(how.status), answer?.body ?? JSON.stringify(how.render(result)));
  } catch (error) {
    if (error instanceof IdempotentReplay) return replay(res, error.stored);
    throw error;
  }
}

function replay(res: Response, stored: StoredAnswer): void {
  res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  sendJsonText(res.status(stored.status), stored.body);
}

/** Deletes keys past the replay window, a bounded batch at a time; returns how many went. */
export async function sweepIdempotentRequests(sql: Sql, batch = 1000): Promise<number> {
  const rows = await prepared(
    sql,
    'idempotency.sweep',
    `DELETE FROM idempotent_requests WHERE ctid IN (
       SELECT ctid FROM idempotent_requests WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY.replayHours}) LIMIT $1)
     RETURNING 1`,
    [batch],
  );
  return rows.length;
}

/**
 * Sweeps expired keys every `intervalMs` (each replica may: a batch deleted twice is
 * harmless), batch after batch until a batch comes back short, so the table holds about a
 * day of keys however fast they come; at most `maxBatches` a round, to bound each round's
 * work. A failed sweep is logged and tried again next time.
 */
export function keepIdempotentRequestsSwept(
  sql: Sql,
  logger: Pick<Logger, 'warn'>,
  options: { intervalMs?: number; batch?: number; maxBatches?: number } = {},
): { stop: () => Promise<void> } {
  const { intervalMs = 60_000, batch = 1000, maxBatches = 100 } = options;
  const sweep = async () => {
    for (let n = 0; n < maxBatches && (await sweepIdempotentRequests(sql, batch)) === batch; n++);
  };
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => logger.warn({ err }, 'sweeping expired idempotency keys failed; next try later'));
  }, intervalMs);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
