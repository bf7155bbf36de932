/**
 * Others' changes on a board, as the live stream tells them: an issue event becomes the
 * card's newest state when it is newer (by `version`) than what the board shows, which
 * card the board then draws (its read, the person's own moves, the events), and the
 * words said for it. A card the person is on (dragging it, or the focus in it) keeps its
 * place until they leave it: the event waits, the words say so.
 */
import type { Schemas } from '@tracker/client';

type EventIssue = Schemas['EventIssue'];

/** What a card shows of an issue. */
export type LiveCard = Pick<EventIssue, 'id' | 'key' | 'title' | 'status_id' | 'position' | 'version' | 'assignee_id' | 'priority'>;

export type BoardChangeKind = 'added' | 'moved' | 'reordered' | 'renamed' | 'changed';

export interface BoardChange {
  key: string;
  kind: BoardChangeKind;
  statusId: number;
  title: string;
}

export const cardOf = (issue: EventIssue): LiveCard => ({
  id: issue.id,
  key: issue.key,
  title: issue.title,
  status_id: issue.status_id,
  position: issue.position,
  version: issue.version,
  assignee_id: issue.assignee_id,
  priority: issue.priority,
});

/**
 * An issue event applied to the board's live cards. Null when the board ignores it: an
 * issue of another queue, or a version not newer than the newest the board knows of the
 * card (the person's own move coming back, a duplicate, an event overtaken by a later
 * one). Else the live cards with the event's, and what changed that a card shows (null
 * when nothing shown changed, say the description).
 */
export function applyIssueEvent(
  live: ReadonlyMap<number, LiveCard>,
  shown: ReadonlyMap<number, LiveCard>,
  queueId: number,
  issue: EventIssue,
): { live: Map<number, LiveCard>; change: BoardChange | null } | null {
  if (issue.queue_id !== queueId) return null;
  const known = newest(shown.get(issue.id), live.get(issue.id));
  if (known && issue.version <= known.version) return null;
  const card = cardOf(issue);
  return { live: new Map(live).set(card.id, card), change: changeOf(known, card) };
}

const newest = (a: LiveCard | undefined, b: LiveCard | undefined) => (!a ? b : !b ? a : b.version > a.version ? b : a);

function changeOf(before: LiveCard | undefined, after: LiveCard): BoardChange | null {
  const change = (kind: BoardChangeKind): BoardChange => ({ key: after.key, kind, statusId: after.status_id, title: after.title });
  if (!before) return change('added');
  if (before.status_id !== after.status_id) return change('moved');
  if (before.position !== after.position) return change('reordered');
  if (before.title !== after.title) return change('renamed');
  if (before.assignee_id !== after.assignee_id || before.priority !== after.priority) return change('changed');
  return null;
}

/**
 * The cards the board draws: each card of its read, replaced by a newer live one, and by
 * the person's own move while it is under way or once it is as new as anything else; then
 * the issues only the stream told of. A card the person is on (`held`: its live state when
 * they came to it) stays as it was then: what came live since waits until they leave it.
 */
export function shownCards<I extends LiveCard>(
  read: readonly I[],
  live: ReadonlyMap<number, I>,
  moved: ReadonlyMap<number, I>,
  pending: ReadonlySet<number>,
  held: ReadonlyMap<number, I | undefined>,
): I[] {
  const toldOf = (id: number) => (held.has(id) ? held.get(id) : live.get(id));
  const cards = read.map((issue) => {
    let card = issue;
    const told = toldOf(issue.id);
    if (told && told.version > card.version) card = told;
    const mine = moved.get(issue.id);
    if (mine && (pending.has(issue.id) || mine.version >= card.version)) card = mine;
    return card;
  });
  const known = new Set(read.map((issue) => issue.id));
  for (const id of live.keys()) {
    const told = toldOf(id);
    if (!known.has(id) && told) cards.push(told);
  }
  return cards;
}

/**
 * The live cards still newer than a new read of the board: those the read has not caught
 * up with (a higher version), and issues the read does not hold (made after it started).
 */
export function liveKept<I extends LiveCard>(live: ReadonlyMap<number, I>, fresh: readonly LiveCard[]): Map<number, I> {
  const read = new Map(fresh.map((issue) => [issue.id, issue.version]));
  const kept = new Map<number, I>();
  for (const [id, card] of live) {
    const version = read.get(id);
    if (version === undefined || card.version > version) kept.set(id, card);
  }
  return kept;
}

/** The words said (politely) for a change: "OPS-3 moved to Done by Bob Builder." */
export function boardChangeInWords(change: BoardChange, statusName: string, who: string, held = false): string {
  const words = {
    added: `${change.key} added to ${statusName}`,
    moved: `${change.key} moved to ${statusName}`,
    reordered: `${change.key} moved within ${statusName}`,
    renamed: `${change.key} renamed “${change.title}”`,
    changed: `${change.key} changed`,
  }[change.kind];
  return held ? `${words} by ${who}; the card shows it when you leave it.` : `${words} by ${who}.`;
}

/** The note on a card the person is on, of a change that waits for them: "Moved to Done by Bob Builder; shown when you leave this card." */
export function waitingInWords(change: BoardChange, statusName: string, who: string): string {
  const words = {
    added: 'Changed',
    moved: `Moved to ${statusName}`,
    reordered: `Moved within ${statusName}`,
    renamed: `Renamed “${change.title}”`,
    changed: 'Changed',
  }[change.kind];
  return `${words} by ${who}; shown when you leave this card.`;
}
