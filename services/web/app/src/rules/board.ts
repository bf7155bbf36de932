/**
 * A queue's board: its statuses as columns in workflow order, the issues as cards in
 * `position` order, where a dropped card lands, the PATCH a move sends, and what a refused
 * move is told in words.
 */
import type { Schemas } from '@tracker/client';

export interface BoardStatus {
  id: number;
  name: string;
  position: number;
}

/** What a card needs of an issue. */
export interface BoardIssue {
  id: number;
  key: string;
  status_id: number;
  position: number;
  version: number;
}

export interface Column<S extends BoardStatus, I extends BoardIssue> {
  status: S;
  cards: I[];
}

const byPlace = (a: { position: number; id: number }, b: { position: number; id: number }) => a.position - b.position || a.id - b.id;

/**
 * One column per status in workflow order, each with its issues by position (ties by id,
 * so the order never flickers). An issue whose status is not the queue's is left out.
 */
export function columnsOf<S extends BoardStatus, I extends BoardIssue>(statuses: readonly S[], issues: readonly I[]): Array<Column<S, I>> {
  return [...statuses].sort(byPlace).map((status) => ({
    status,
    cards: issues.filter((issue) => issue.status_id === status.id).sort(byPlace),
  }));
}

/**
 * The position of a card dropped at `index` among `cards` (the column's cards without
 * the one moving): between its neighbours, 1 before the first, and none (undefined) at
 * the end, where the API puts a moved issue by itself.
 */
export function dropPosition(cards: ReadonlyArray<{ position: number }>, index: number): number | undefined {
  if (index >= cards.length) return undefined;
  const after = cards[Math.max(index, 0)]!.position;
  if (index <= 0) return after - 1;
  const before = cards[index - 1]!.position;
  return before + (after - before) / 2;
}

/**
 * Where among `cardMiddles` (the vertical middles of the column's other cards, top to
 * bottom) a card dropped at `y` goes: before the first card whose middle is below it.
 */
export const dropIndex = (cardMiddles: readonly number[], y: number) => {
  const index = cardMiddles.findIndex((middle) => y < middle);
  return index === -1 ? cardMiddles.length : index;
};

/**
 * The PATCH of a move, with the version the card was read at (the API refuses it with 409
 * if the issue changed since), or null when the card stays where it is. Within its own
 * status a card is only reordered, and only with a position.
 */
export function moveRequest(issue: BoardIssue, toStatusId: number, position: number | undefined): Schemas['IssueUpdate'] | null {
  if (toStatusId === issue.status_id) {
    if (position === undefined || position === issue.position) return null;
    return { version: issue.version, position };
  }
  return position === undefined ? { version: issue.version, status_id: toStatusId } : { version: issue.version, status_id: toStatusId, position };
}

/**
 * The cards moved here that still stand after a new read of the board: those the read has
 * not caught up with (the move's answer carried a higher version than the read's). A card
 * the read already shows at its version or later, or no longer shows, is the read's again.
 */
export function stillMoved<I extends BoardIssue>(moved: ReadonlyMap<number, I>, fresh: readonly I[]): Map<number, I> {
  const kept = new Map<number, I>();
  for (const issue of fresh) {
    const card = moved.get(issue.id);
    if (card && card.version > issue.version) kept.set(issue.id, card);
  }
  return kept;
}

/**
 * Whether a card dropped at `index` among the other cards of `cards` (its column, itself
 * included) stays where it is: it then goes back to its own place.
 */
export function staysInPlace(cards: ReadonlyArray<{ id: number }>, movingId: number, index: number): boolean {
  const from = cards.findIndex((card) => card.id === movingId);
  return from !== -1 && index === from;
}

/** The status a "Move to" control offers first: the next one in the workflow, or the first other one from the last. */
export function suggestedStatus(statuses: readonly BoardStatus[], currentId: number): number | undefined {
  const ordered = [...statuses].sort((a, b) => a.position - b.position);
  const at = ordered.findIndex((status) => status.id === currentId);
  const next = ordered[at + 1] ?? ordered.find((status) => status.id !== currentId);
  return next?.id;
}

/** What a refused move is told, by the problem's code: why, and what the board did about it. */
export function moveProblem(problem: { code: string; detail: string; status: number }, key: string, statusName: string): string {
  switch (problem.code) {
    case 'version_conflict':
    case 'precondition_failed':
      return `${key} was not moved: someone changed it since the board was loaded. The board now shows it as it is; move it again if you still want to.`;
    case 'forbidden':
      return `${key} was not moved: your role on this queue lets you read its issues but not change them.`;
    case 'not_found':
      return `${key} was not moved: it no longer exists or you can no longer see it.`;
    case 'validation_failed':
      return `${key} cannot move to ${statusName}: ${problem.detail}`;
    default:
      return `${key} was not moved: ${problem.detail}`;
  }
}
