import { EVENT_LIMITS } from '@tracker/contracts';

/**
 * A public event's JSON within EVENT_LIMITS.payloadBytes (64 KiB, UTF-8), as the feed
 * serves it and webhooks will send it. Only long texts can outgrow it (a description of
 * 100,000 characters, a comment of 50,000): the longest are cut first, each to the first
 * characters that fit, with `<field>_truncated: true` beside it, so a consumer knows to
 * read the object through the API. Should that not be enough (labels and titles full of
 * characters JSON escapes six bytes wide), `previous` is left empty and
 * `previous_truncated: true` says so. A cut never splits a character.
 */

/** The texts that may be cut, by the object holding them under `data`. */
const CUTTABLE: ReadonlyArray<readonly [holder: string, field: string]> = [
  ['issue', 'description'],
  ['previous', 'description'],
  ['comment', 'body'],
  ['worklog', 'description'],
  ['queue', 'description'],
];

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');
const jsonBytes = (value: unknown) => bytesOf(JSON.stringify(value));

export function cappedJson(event: { data: Record<string, unknown> }, limit: number = EVENT_LIMITS.payloadBytes): string {
  let text = JSON.stringify(event);
  if (bytesOf(text) <= limit) return text;
  const data = event.data;
  const texts = CUTTABLE.flatMap(([holder, field]) => {
    const object = data[holder] as Record<string, unknown> | undefined;
    return object && typeof object[field] === 'string' ? [{ object, field }] : [];
  }).sort((a, b) => jsonBytes(b.object[b.field]) - jsonBytes(a.object[a.field]));
  for (const { object, field } of texts) {
    const flag = `${field}_truncated`;
    // The flag's own bytes ("…_truncated":true,) come out of the budget too.
    const excess = bytesOf(text) - limit + (flag in object ? 0 : jsonBytes(flag) + 6);
    const value = object[field] as string;
    object[field] = prefixWithin(value, Math.max(2, jsonBytes(value) - excess));
    object[flag] = true;
    text = JSON.stringify(event);
    if (bytesOf(text) <= limit) return text;
  }
  if (data.previous !== undefined) {
    data.previous = {};
    data.previous_truncated = true;
    text = JSON.stringify(event);
  }
  return text;
}

/** The longest prefix of `text` (whole characters) whose JSON string takes at most `maxBytes` bytes, quotes included. */
export function prefixWithin(text: string, maxBytes: number): string {
  if (jsonBytes(text) <= maxBytes) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(wholePrefix(text, mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return wholePrefix(text, low);
}

/** The first `units` UTF-16 units of `text`, one fewer when that would split a surrogate pair. */
function wholePrefix(text: string, units: number): string {
  const code = text.charCodeAt(units - 1);
  return units > 0 && code >= 0xd800 && code <= 0xdbff ? text.slice(0, units - 1) : text.slice(0, units);
}
