import { ISSUE_READ_LIMITS } from '@tracker/contracts';
import { ISSUE_FIELD_API_NAMES, type IssueFieldApiName } from './issue-wire';
import type { FieldChange } from './model';

/**
 * History keeps at most ISSUE_READ_LIMITS.historyText characters (Unicode code points)
 * of a text value: a PATCH of a 100,000-character description must not store both
 * versions whole, nor make every later read carry them.
 *
 * Stored, a longer text keeps one character more than is shown (`limit + 1`): the read
 * (issue-reads.repository.ts, in SQL) shows the first `limit` characters of any stored
 * text longer than `limit` and marks it truncated. So rows written before this rule
 * (whole texts) and rows written after it read alike, with no migration.
 */
export const HISTORY_TEXT_LIMIT: number = ISSUE_READ_LIMITS.historyText;

/** The first `count` code points of `text` (a surrogate pair is never split: Postgres refuses half of one). */
export function prefixOf(text: string, count: number): string {
  if (text.length <= count) return text;
  let units = 0;
  for (let points = 0; points < count && units < text.length; points++) {
    const code = text.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff && units + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, units);
}

const codePoints = (text: string, atLeast: number) => {
  // Counting stops early: only whether there are more than `atLeast` matters.
  let points = 0;
  for (const _ of text) if (++points > atLeast) break;
  return points;
};

/** A value as the history stores it: a text past the limit keeps `limit + 1` characters (the mark), anything else as it is. */
export function storedHistoryValue(value: unknown, limit = HISTORY_TEXT_LIMIT): unknown {
  return typeof value === 'string' && codePoints(value, limit + 1) > limit + 1 ? prefixOf(value, limit + 1) : value;
}

/** A value as history shows it: at most `limit` characters of a text, and whether it was cut. */
export function shownHistoryValue(value: unknown, limit = HISTORY_TEXT_LIMIT): { value: unknown; truncated: boolean } {
  if (typeof value !== 'string' || codePoints(value, limit) <= limit) return { value, truncated: false };
  return { value: prefixOf(value, limit), truncated: true };
}

/**
 * A change as history entries and the `issue.updated` event hold it: under the field's
 * API name (`estimate_minutes`), which is data the API shows, not the domain's name.
 */
export interface HistoryChange {
  field: IssueFieldApiName;
  from: unknown;
  to: unknown;
}

/** The changes of a PATCH as its history entries store them. */
export const storedHistory = (changes: readonly FieldChange[], limit = HISTORY_TEXT_LIMIT): HistoryChange[] =>
  changes.map((c) => ({ field: ISSUE_FIELD_API_NAMES[c.field], from: storedHistoryValue(c.from, limit), to: storedHistoryValue(c.to, limit) }));

/**
 * The changes of a PATCH as the `issue.updated` event carries them: as history shows them
 * (the issue state in the same event carries the whole new description).
 */
export const shownChanges = (changes: readonly FieldChange[], limit = HISTORY_TEXT_LIMIT) =>
  changes.map((c) => {
    const from = shownHistoryValue(c.from, limit);
    const to = shownHistoryValue(c.to, limit);
    return { field: ISSUE_FIELD_API_NAMES[c.field], from: from.value, to: to.value, from_truncated: from.truncated, to_truncated: to.truncated };
  });
