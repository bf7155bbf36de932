import { PROBLEM_CODES } from '@tracker/contracts';

/**
 * One error type for every service. A use case throws `AppError` with a stable
 * `code`; the HTTP layer maps the code to a status and a problem+json body.
 */
export const errorCatalog = {
  ...PROBLEM_CODES,
  // A bug, never part of the contract: the public document lists only PROBLEM_CODES.
  internal_error: { status: 500, title: 'Internal server error' },
} as const;

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
