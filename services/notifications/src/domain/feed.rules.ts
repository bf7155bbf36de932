import { EVENT_LIMITS, typesSelectedBy, type PublicEventType } from '@tracker/contracts';
import type { FieldError } from '@tracker/kit';
import type { Position } from './model';

/**
 * The feed's query as rules: the cursor (an opaque text naming a position in the log) and
 * the `types` list. Pure, so each is tested alone.
 *
 * A cursor is `c1_` and the base64url of the position's decimal digits: opaque to clients
 * (they only send back what they were given), versioned by its prefix should its content
 * ever change, and no secret (a position says nothing a caller could not read; what each
 * caller sees is decided when they read).
 */
const CURSOR_PREFIX = 'c1_';
const MAX_POSITION = 2n ** 63n - 1n;

export const cursorOf = (position: Position): string => CURSOR_PREFIX + Buffer.from(position.toString(), 'utf8').toString('base64url');

/** The position a cursor names, or null for a text that is no cursor of this API. */
export function positionOf(cursor: string): Position | null {
  if (!cursor.startsWith(CURSOR_PREFIX)) return null;
  const encoded = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(encoded)) return null;
  const digits = Buffer.from(encoded, 'base64url').toString('utf8');
  // Exactly what cursorOf makes: no leading zeros, no other encoding of the same position.
  if (!/^(0|[1-9][0-9]{0,18})$/.test(digits) || cursorOf(BigInt(digits)) !== cursor) return null;
  const position = BigInt(digits);
  return position <= MAX_POSITION ? position : null;
}

/**
 * The types a `types` parameter selects: each comma-separated item a type or a pattern
 * ending in `*` (`issue.*`; `*` for every type). An empty item, or one that selects no
 * type (a misspelt one), is an error naming it: a filter that silently matched nothing
 * would look like a quiet workspace.
 */
export function typesOf(text: string): { ok: true; types: PublicEventType[] } | { ok: false; errors: FieldError[] } {
  if (text.length > EVENT_LIMITS.typesText) return { ok: false, errors: [{ path: 'types', message: `must be at most ${EVENT_LIMITS.typesText} characters` }] };
  const selected = new Set<PublicEventType>();
  const errors: FieldError[] = [];
  for (const item of text.split(',')) {
    const name = item.trim();
    const types = name === '' ? [] : typesSelectedBy(name);
    if (types.length === 0) errors.push({ path: 'types', message: name === '' ? 'must not hold an empty item' : `"${name.slice(0, 60)}" is no event type and no pattern of one` });
    for (const type of types) selected.add(type);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, types: [...selected] };
}
