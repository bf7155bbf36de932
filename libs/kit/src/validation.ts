import { z } from 'zod';
import { AppError, invalid, type FieldError } from './errors';

/** Every failing path of a zod error, as the 422 body lists them. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const at = (path: PropertyKey[]) => path.map(String).join('.') || '(body)';
    // One entry per unknown field, so a client sees exactly which names to drop.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: at([...issue.path, key]), message: 'unknown field' }));
    }
    return [{ path: at(issue.path), message: issue.message }];
  });
}

/** Parses a request body with its schema; a failure is a 422 listing every path. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw invalid(fieldErrors(result.error), 'The request body is not valid.');
  return result.data;
}

const wholeNumber = /^[0-9]{1,16}$/;

/**
 * Query parameters (a list page's ListPage, a delivery log's filter): each given at most
 * once, and as decimal digits unless named in `text` (`?limit=`, `?limit=1e2`,
 * `?limit=5&limit=6` are 422), then checked by the schema (ranges, enums; unknown
 * parameters are 422 as unknown body fields are). Never a 500.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>, options: { text?: readonly string[] } = {}): z.output<S> {
  const errors = Object.entries(query)
    .filter(([name, value]) => typeof value !== 'string' || !(options.text?.includes(name) || wholeNumber.test(value)))
    .map(([name, value]) => ({ path: name, message: typeof value === 'string' ? 'must be a whole number' : 'must be given once' }));
  const result = schema.safeParse(query);
  if (!result.success) {
    const named = new Set(errors.map((e) => e.path));
    errors.push(...fieldErrors(result.error).filter((e) => !named.has(e.path)));
  }
  if (errors.length > 0 || !result.success) throw invalid(errors, 'The query parameters are not valid.');
  return result.data;
}

const positiveId = /^[1-9][0-9]{0,15}$/;

/** Path ids are integers > 0, int4 unless `max` says more (anything else is 422, never 500). */
export function parseId(name: string, raw: unknown, max = 2_147_483_647): number {
  const value = typeof raw === 'string' && positiveId.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value > max) {
    throw new AppError('validation_failed', `Path parameter ${name} must be an integer greater than 0.`, {
      errors: [{ path: name, message: 'must be an integer greater than 0' }],
    });
  }
  return value;
}
