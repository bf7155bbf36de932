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
}

/**
 * A typed client: `client.GET('/api/v1/issues/{key}', { params: { path: { key } } })`
 * answers `{ data }` on success or `{ error }` (a Problem) otherwise, typed from the
 * OpenAPI document.
 */
export function createTrackerClient(options: TrackerClientOptions): TrackerClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${options.token}` },
  });
  for (const middleware of options.middleware ?? []) client.use(middleware);
  return client;
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

/** Every attempt of a safe update met a newer version (409 each time). */
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
  /** Reads and PATCHes at most this many times (the spec: re-read and reconsider, not repeat without limit). Default 5. */
  maxAttempts?: number;
}

/**
 * Updates an issue without losing anyone else's change: reads it, asks `change` what
 * to change given what it read (null: nothing), and PATCHes that with the version it
 * read. On 409 `version_conflict` it reads again and asks `change` again, a bounded
 * number of times. Returns the issue after the change (or as read, when nothing changed).
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
    const written = await client.PATCH('/api/v1/issues/{key}', { params: { path }, body: { ...changes, version: read.data.version } });
    if (written.data) return written.data;
    const problem = written.error as Problem;
    if (problem.code !== 'version_conflict') throw new TrackerApiError(written.response.status, problem);
  }
  throw new UpdateConflictError(key, maxAttempts);
}
