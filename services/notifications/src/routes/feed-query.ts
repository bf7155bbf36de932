import { EVENT_LIMITS } from '@tracker/contracts';
import { invalid, type FieldError } from '@tracker/kit';
import { positionOf, typesOf } from '../domain/feed.rules';
import type { FeedQuery } from '../domain/list-events.use-case';

const PARAMETERS = new Set(['after', 'types', 'limit']);

/**
 * The query of GET /api/v1/events (contracts EventsQuery): each parameter at most once,
 * `after` a cursor this API answered, `types` known types and patterns, `limit` a whole
 * number from 1 to 500. Anything else, an unknown parameter included, is 422 naming it.
 */
export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  const errors: FieldError[] = [];
  const once = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || typeof value === 'string') return value;
    errors.push({ path: name, message: 'must be given once' });
    return undefined;
  };
  for (const name of Object.keys(query)) if (!PARAMETERS.has(name)) errors.push({ path: name, message: 'unknown query parameter' });

  const afterText = once('after');
  const after = afterText === undefined ? null : positionOf(afterText);
  if (afterText !== undefined && after === null) errors.push({ path: 'after', message: 'must be a cursor this API answered (`next_cursor`)' });

  const typesText = once('types');
  const types = typesText === undefined ? null : typesOf(typesText);
  if (types && !types.ok) errors.push(...types.errors);

  const limitText = once('limit');
  const limit = limitText === undefined ? EVENT_LIMITS.pageDefault : /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= EVENT_LIMITS.pageMax)) errors.push({ path: 'limit', message: `must be a whole number from 1 to ${EVENT_LIMITS.pageMax}` });

  if (errors.length > 0) throw invalid(errors, 'The query parameters are not valid.');
  return { after, types: types?.ok ? types.types : null, limit };
}
