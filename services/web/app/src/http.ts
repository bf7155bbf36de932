/**
 * The page's own typed fetch helper for the gateway on this origin: `/auth/*` with the
 * session cookie (the browser sends it; the page never sees it), `/api/v1` with the
 * session's bearer token. Every refusal is a problem+json (RFC 9457) with a stable `code`.
 */
export interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: Array<{ path: string; message: string }>;
  /** Seconds to wait before trying again (the Retry-After header), when the answer says. */
  retryAfterSeconds?: number;
}

export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ProblemError';
  }
}

/** A problem from a failed answer's status, headers and body (its problem+json, if it had one). */
function problemFrom(response: Response, body: unknown): Problem {
  const fields = (body ?? {}) as Partial<Problem>;
  const retryAfter = Number(response.headers.get('Retry-After'));
  return {
    status: response.status,
    code: typeof fields.code === 'string' ? fields.code : `http_${response.status}`,
    detail: typeof fields.detail === 'string' ? fields.detail : `The request failed (${response.status}).`,
    errors: Array.isArray(fields.errors) ? fields.errors : undefined,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  };
}

/** What a failed answer says: its problem+json, or what its status alone tells. */
export async function problemOf(response: Response): Promise<Problem> {
  // not JSON (a proxy's error page): the status speaks
  const body: unknown = await response.json().catch(() => undefined);
  return problemFrom(response, body);
}

/** A network failure, told as a problem like any other. */
const unreachable = (): Problem => ({ status: 0, code: 'network_error', detail: 'Tracker could not be reached. Check the connection and try again.' });

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Sends one request to this origin; JSON in and out. Never follows a redirect silently to elsewhere. */
export async function send(method: Method, path: string, options: { body?: unknown; token?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  try {
    return await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    throw new ProblemError(unreachable());
  }
}

/** The answer's JSON, or a ProblemError for anything but 2xx. */
export async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new ProblemError(await problemOf(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** The data of a typed client's answer, or a ProblemError: `ok(await client.GET(...))`. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error === undefined && answer.response.ok) return answer.data as T;
  throw new ProblemError(problemFrom(answer.response, answer.error));
}
