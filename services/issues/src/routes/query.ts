import type { z } from 'zod';
import { fieldErrors, invalid } from '@tracker/kit';

const wholeNumber = /^[0-9]{1,10}$/;

/**
 * Query parameters of a list page (ListPage): each given at most once, as decimal digits
 * (`?limit=`, `?limit=1e2`, `?limit=5&limit=6` are 422), then checked by the schema
 * (ranges; unknown parameters are 422 as unknown body fields are). Never a 500.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>): z.output<S> {
  const errors = Object.entries(query)
    .filter(([, value]) => typeof value !== 'string' || !wholeNumber.test(value))
    .map(([name]) => ({ path: name, message: 'must be a whole number, given once' }));
  const result = schema.safeParse(query);
  if (!result.success) {
    const named = new Set(errors.map((e) => e.path));
    errors.push(...fieldErrors(result.error).filter((e) => !named.has(e.path)));
  }
  if (errors.length > 0 || !result.success) throw invalid(errors, 'The query parameters are not valid.');
  return result.data;
}
