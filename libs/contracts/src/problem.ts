import { z } from 'zod';

/** RFC 9457 body of every error answer (docs/decisions.md: Errors). */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof Problem>;

/**
 * Every `code` a public answer can carry, with its status and title (docs/decisions.md: Errors).
 * The kit's error catalog answers with exactly these (a gateway test holds them equal);
 * its `internal_error` (500) is a bug, never part of the contract.
 */
export const PROBLEM_CODES = {
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Not enough rights' },
  not_found: { status: 404, title: 'Not found' },
  version_conflict: { status: 409, title: 'Version conflict' },
  last_active_admin: { status: 409, title: 'Last active admin' },
  queue_key_taken: { status: 409, title: 'Queue key taken' },
  email_taken: { status: 409, title: 'Email taken' },
  session_required: { status: 403, title: 'Session required' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  invalid_setup_code: { status: 400, title: 'Invalid setup code' },
  cross_site_request: { status: 403, title: 'Cross-site request' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  bad_request: { status: 400, title: 'Bad request' },
  request_timeout: { status: 408, title: 'Request timeout' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  validation_failed: { status: 422, title: 'Invalid request' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  statistics_unavailable: { status: 503, title: 'Statistics unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemCode = keyof typeof PROBLEM_CODES;

/** `type` of a problem: a stable URI per code. */
export const problemType = (code: ProblemCode) => `https://tracker.dev/problems/${code.replace(/_/g, '-')}`;

export const FieldError = z.object({
  path: z.string().meta({ description: 'What failed: the dotted path of a body field (`title`, `widgets.0.filters.queue_ids`), the name of a path, query or header parameter (`key`, `limit`, `Idempotency-Key`), or `(body)` for the body as a whole.' }),
  message: z.string().meta({ description: 'What is wrong with it, for humans.' }),
});

/** The exact problem body of one code; `extra` adds the fields that code carries. */
export const problemOf = <const C extends ProblemCode, E extends z.ZodRawShape = {}>(code: C, extra?: E) =>
  z.strictObject({
    type: z.literal(problemType(code)).meta({ description: 'A URI naming the problem type, one per `code` (RFC 9457).' }),
    title: z.literal(PROBLEM_CODES[code].title).meta({ description: 'A short, fixed summary of the problem type.' }),
    status: z.literal(PROBLEM_CODES[code].status).meta({ description: 'The HTTP status of the answer.' }),
    detail: z.string().meta({ description: 'What went wrong in this case, for humans (the wording may change; match on `code`).' }),
    code: z.literal(code).meta({ description: 'The stable, machine-readable problem code.' }),
    ...((extra ?? {}) as E),
  });

/** The problem bodies the API documents, one per code (422 lists every failing field). */
export const Problems = {
  unauthorized: problemOf('unauthorized'),
  forbidden: problemOf('forbidden'),
  not_found: problemOf('not_found'),
  /** The body carries the current `version`, to re-read and reconsider from. */
  version_conflict: problemOf('version_conflict', { version: z.number().int().positive().meta({ description: 'The issue\'s current version: re-read the issue, then reconsider the change.' }) }),
  last_active_admin: problemOf('last_active_admin'),
  queue_key_taken: problemOf('queue_key_taken'),
  email_taken: problemOf('email_taken'),
  session_required: problemOf('session_required'),
  invalid_credentials: problemOf('invalid_credentials'),
  invalid_setup_code: problemOf('invalid_setup_code'),
  cross_site_request: problemOf('cross_site_request'),
  cursor_expired: problemOf('cursor_expired'),
  /** `If-Match` named another version than the current one, given in the body. */
  precondition_failed: problemOf('precondition_failed', { version: z.number().int().positive().meta({ description: 'The issue\'s current version: re-read the issue, then reconsider the change.' }) }),
  payload_too_large: problemOf('payload_too_large'),
  bad_request: problemOf('bad_request'),
  request_timeout: problemOf('request_timeout'),
  headers_too_large: problemOf('headers_too_large'),
  validation_failed: problemOf('validation_failed', { errors: z.array(FieldError).min(1).meta({ description: 'Every failing field, parameter or header, each with what is wrong.' }) }),
  idempotency_key_reused: problemOf('idempotency_key_reused'),
  rate_limited: problemOf('rate_limited'),
  service_unavailable: problemOf('service_unavailable'),
  statistics_unavailable: problemOf('statistics_unavailable'),
} satisfies Record<ProblemCode, z.ZodType>;
