import { DeliveriesQuery } from '@tracker/contracts';
import { fieldErrors, invalid, type FieldError } from '@tracker/kit';

/** The query of GET /api/v1/webhooks/{id}/deliveries (contracts DeliveriesQuery): each parameter at most once, nothing unknown (422 naming it). */
export function parseDeliveriesQuery(query: Record<string, unknown>): DeliveriesQuery {
  const errors: FieldError[] = Object.entries(query)
    .filter(([, value]) => typeof value !== 'string')
    .map(([name]) => ({ path: name, message: 'must be given once' }));
  const given = Object.fromEntries(Object.entries(query).filter(([, value]) => typeof value === 'string'));
  // Whole numbers only: `Number()` alone would take "1e3", " 7" or "0x10".
  for (const name of ['before_id', 'limit'] as const) {
    if (typeof given[name] === 'string' && !/^[0-9]{1,16}$/.test(given[name] as string)) errors.push({ path: name, message: 'must be a whole number' });
  }
  const result = DeliveriesQuery.safeParse(given);
  if (!result.success) {
    const named = new Set(errors.map((e) => e.path));
    errors.push(...fieldErrors(result.error).filter((e) => !named.has(e.path)));
  }
  if (errors.length > 0 || !result.success) throw invalid(errors, 'The query parameters are not valid.');
  return result.data;
}

/** A delivery id in the path: 1 to 2^53 - 1 (deliveries outgrow int4), anything else 422. */
export function parseDeliveryId(raw: unknown): number {
  const value = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value)) throw invalid([{ path: 'delivery_id', message: 'must be an integer greater than 0' }], 'Path parameter delivery_id must be an integer greater than 0.');
  return value;
}
