/**
 * Others' changes on an issue's page, as the live stream tells them. The page reads the
 * issue again when an event is newer than what it shows (an event's description may be
 * cut; the read has the history too), then decides: the person's own writes coming back,
 * duplicates and reordered events are not newer and are dropped; a newer copy is taken,
 * the person's unsaved edits carried onto it, unless they edited a field the other change
 * set to something else: then the copy is not taken and they are told, with "Reload".
 */
import { FIELD_NAMES, rebase, type Draft, type DraftField } from './issue-edit';

export type LiveDecision =
  /** Take the fresh copy; the form shows `draft` (the person's edits kept); `theirs` changed. */
  | { kind: 'take'; draft: Draft; theirs: DraftField[] }
  /** The person has unsaved edits of `fields`, which the other change set otherwise: tell, do not take. */
  | { kind: 'conflict'; fields: DraftField[] };

/** An event's version against the one shown: only a newer one is news. */
export const isNewer = (eventVersion: number, shownVersion: number): boolean => eventVersion > shownVersion;

/** Whether an item (a comment, a worklog) the stream tells of is not among those shown. */
export const isNewItem = (shown: ReadonlyArray<{ id: number }>, id: number): boolean => !shown.some((item) => item.id === id);

/**
 * What a fresh copy does to the form: `read` is the copy the form started from (the one
 * held), `draft` what it holds now, `fresh` the new copy.
 */
export function decideLive(read: Draft, draft: Draft, fresh: Draft): LiveDecision {
  const { draft: merged, theirs, clashes } = rebase(read, draft, fresh);
  return clashes.length ? { kind: 'conflict', fields: clashes } : { kind: 'take', draft: merged, theirs };
}

/** "A", "A and B", "A, B and C" (or, with `joiner` 'or', "A, B or C"). */
export const listInWords = (items: readonly string[], joiner = 'and'): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${joiner} ${items[items.length - 1]}`;

/**
 * The words said (politely) for a change taken: "Bob Builder changed the status to Done
 * and Title." Null when nothing the page shows changed.
 */
export function issueChangeInWords(who: string, theirs: readonly DraftField[], newStatus: string | null): string | null {
  const parts = [...(newStatus ? [`the status to ${newStatus}`] : []), ...theirs.map((field) => FIELD_NAMES[field])];
  return parts.length ? `${who} changed ${listInWords(parts)}.` : null;
}
