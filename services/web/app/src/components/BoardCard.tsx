import { useState, type DragEvent, type FocusEvent, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { pathTo } from '../../../src/pages';
import { suggestedStatus } from '../rules/board';
import { PRIORITY_NAMES } from '../rules/issue-fields';
import { Link } from '../ui';

export type CardIssue = Pick<Schemas['IssueSummary'], 'id' | 'key' | 'title' | 'status_id' | 'position' | 'version' | 'assignee_id' | 'priority'>;

/**
 * One issue on a board: its key (a link to it), title, assignee and priority. Where the
 * person may move it, it is draggable, and its "Move to" control moves it by keyboard to
 * the end of another status. A refused move is told on the card, as is a change someone
 * else made while the person was on the card (it is drawn once they leave it).
 */
export function BoardCard({
  idBase,
  issue,
  assignee,
  statuses,
  movable,
  pending,
  problem,
  waiting,
  dropBefore,
  onMove,
  onDragStart,
  onDragEnd,
  onFocusIn,
  onFocusOut,
}: {
  idBase: string;
  issue: CardIssue;
  assignee: string | null;
  statuses: Schemas['Status'][];
  movable: boolean;
  pending: boolean;
  problem?: string;
  /** Someone else's change to this issue, not drawn yet because the person is on the card. */
  waiting?: string;
  dropBefore: boolean;
  onMove: (statusId: number) => void;
  onDragStart: (event: DragEvent<HTMLLIElement>) => void;
  onDragEnd: () => void;
  /** The focus came into the card (from outside it). */
  onFocusIn: () => void;
  /** The focus left the card. */
  onFocusOut: () => void;
}) {
  const others = statuses.filter((status) => status.id !== issue.status_id);
  const [target, setTarget] = useState<number | undefined>(() => suggestedStatus(statuses, issue.status_id));
  // Moved elsewhere meanwhile (a drop, a reload): offer the next status from where it is now.
  const chosen = others.some((status) => status.id === target) ? target : suggestedStatus(statuses, issue.status_id);
  const titleId = `${idBase}-title-${issue.id}`;
  const moveId = moveControlId(idBase, issue.id);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen !== undefined && !pending) onMove(chosen);
  };

  return (
    <li
      className={`board-card${pending ? ' pending' : ''}${dropBefore ? ' drop-before' : ''}`}
      data-issue-id={issue.id}
      draggable={movable && !pending}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      onFocus={onFocusIn}
      onBlur={(event: FocusEvent<HTMLLIElement>) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) onFocusOut();
      }}
      aria-busy={pending || undefined}
    >
      <div className="board-card-top">
        <Link to={pathTo('issue', { key: issue.key })} draggable={false} className="board-card-key">
          {issue.key}
        </Link>
        <span className={`issue-priority issue-priority-${issue.priority}`}>
          <span className="visually-hidden">Priority: </span>
          {PRIORITY_NAMES[issue.priority]}
        </span>
      </div>
      <p className="board-card-title" id={titleId}>
        {issue.title}
      </p>
      <p className="board-card-assignee">{assignee ? assignee : <span className="hint">Unassigned</span>}</p>
      {problem && (
        <p className="board-card-problem" role="alert">
          {problem}
        </p>
      )}
      {waiting && <p className="board-card-waiting">{waiting}</p>}
      {movable && others.length > 0 && (
        <form className="board-move-form" onSubmit={submit}>
          <label htmlFor={moveId}>Move to</label>
          <div className="board-move-row">
            <select id={moveId} aria-describedby={titleId} value={chosen} onChange={(e) => setTarget(Number(e.target.value))}>
              {others.map((status) => (
                <option key={status.id} value={status.id}>
                  {status.name}
                </option>
              ))}
            </select>
            <button type="submit" className="secondary" aria-label={`Move ${issue.key}`} disabled={pending}>
              Move
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/** The id of a card's "Move to" control, which takes the focus back after a move. */
export const moveControlId = (idBase: string, issueId: number) => `${idBase}-move-${issueId}`;
