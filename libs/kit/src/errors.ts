/**
 * One error type for every service. A use case throws `AppError` with a stable
 * `code`; the HTTP layer maps the code to a status and a problem+json body.
 */
export const errorCatalog = {
  validation_failed: { status: 422, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Not enough rights' },
  not_found: { status: 404, title: 'Not found' },
  version_conflict: { status: 409, title: 'Version conflict' },
  last_active_admin: { status: 409, title: 'Last active admin' },
  queue_key_taken: { status: 409, title: 'Queue key taken' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  bad_request: { status: 400, title: 'Bad request' },
  request_timeout: { status: 408, title: 'Request timeout' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  statistics_unavailable: { status: 503, title: 'Statistics unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; fields?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = errorCatalog[code].status;
    this.title = errorCatalog[code].title;
  }
}

export const notFound = (what = 'The object') => new AppError('not_found', `${what} does not exist or is not visible to you.`);
export const forbidden = (detail = 'Your role does not allow this action.') => new AppError('forbidden', detail);
export const invalid = (errors: FieldError[], detail = 'The request is not valid.') =>
  new AppError('validation_failed', detail, { errors });

/**
 * At most this many field errors are listed: a body with 100,000 bad elements or
 * unknown fields must not produce an answer larger than the request.
 */
export const MAX_FIELD_ERRORS = 50;

/** RFC 9457 problem details body for an error. */
export function problemBody(error: AppError): Record<string, unknown> {
  const errors = error.extra.errors;
  const cut = errors !== undefined && errors.length > MAX_FIELD_ERRORS;
  return {
    type: `https://tracker.dev/problems/${error.code.replace(/_/g, '-')}`,
    title: error.title,
    status: error.status,
    detail: cut ? `${error.detail} The first ${MAX_FIELD_ERRORS} of ${errors.length} errors are listed.` : error.detail,
    code: error.code,
    ...(errors ? { errors: cut ? errors.slice(0, MAX_FIELD_ERRORS) : errors } : {}),
    ...error.extra.fields,
  };
}
