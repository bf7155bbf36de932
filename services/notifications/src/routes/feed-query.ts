import { EVENT_LIMITS } from '@tracker/contracts';
import { invalid, type FieldError } from '@tracker/kit';
import { positionOf, typesOf } from '../domain/feed.rules';
import type { FeedQuery } from '../domain/list-events.use-case';
import type { StreamQuery } from '../domain/stream-events.use-case';

const PARAMETERS = new Set(['after', 'types', 'limit']);
const STREAM_PARAMETERS = new Set(['after', 'types']);

/**
 * The query of GET /api/v1/events (contracts EventsQuery): each parameter at most once,
 * `after` a cursor this API answered, `types` known types and patterns, `limit` a whole
 * number from 1 to 500. Anything else, an unknown parameter included, is 422 naming it.
 */
export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  return parseQuery(query, PARAMETERS);
}

/**
 * The query and header of GET /api/v1/events/stream: `types` as the feed's, and where to
 * resume: `Last-Event-ID` (what EventSource sends on reconnecting: the id of the last event
 * it received) or `after` for clients that cannot set headers; the header wins when both
 * come, being the newer. An empty header is none (EventSource's "no id yet").
 */
export function parseStreamQuery(query: Record<string, unknown>, lastEventId: string | undefined): StreamQuery {
  const { types, after } = parseQuery(query, STREAM_PARAMETERS);
  if (lastEventId === undefined || lastEventId === '') return { after, types };
  const position = positionOf(lastEventId.trim());
  if (position === null) throw invalid([{ path: 'Last-Event-ID', message: 'must be the id of an event of this stream (a cursor this API answered)' }], 'The Last-Event-ID header is not valid.');
  return { after: position, types };
}

function parseQuery(query: Record<string, unknown>, parameters: ReadonlySet<string>): FeedQuery {
  const errors: FieldError[] = [];
  const once = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || typeof value === 'string') return value;
    errors.push({ path: name, message: 'must be given once' });
    return undefined;
  };
  for (const name of Object.keys(query)) if (!parameters.has(name)) errors.push({ path: name, message: 'unknown query parameter' });

  const afterText = once('after');
  const after = afterText === undefined ? null : positionOf(afterText);
  if (afterText !== undefined && after === null) errors.push({ path: 'after', message: 'must be a cursor this API answered (`next_cursor`)' });

  const typesText = once('types');
  const types = typesText === undefined ? null : typesOf(typesText);
  if (types && !types.ok) errors.push(...types.errors);

  const limitText = parameters.has('limit') ? once('limit') : undefined;
  const limit = limitText === undefined ? EVENT_LIMITS.pageDefault : /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= EVENT_LIMITS.pageMax)) errors.push({ path: 'limit', message: `must be a whole number from 1 to ${EVENT_LIMITS.pageMax}` });

  if (errors.length > 0) throw invalid(errors, 'The query parameters are not valid.');
  return { after, types: types?.ok ? types.types : null, limit };
}
