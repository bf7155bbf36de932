import { useEffect, useId, useMemo, useRef, useState, type DragEvent } from 'react';
import type { PublicEvent, Schemas } from '@tracker/client';
import { PAGES, pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { BoardCard, moveControlId, type CardIssue } from '../components/BoardCard';
import { ok, ProblemError } from '../http';
import { useEventStream } from '../live';
import { columnsOf, dropIndex, dropPosition, moveProblem, moveRequest, staysInPlace, stillMoved } from '../rules/board';
import { applyIssueEvent, boardChangeInWords, liveKept, shownCards, waitingInWords, type LiveCard } from '../rules/live-board';
import { searchSize } from '../rules/issue-filters';
import { Alert, Link, Loading, messageOf, PageHeading, useLoad, useTitle } from '../ui';

interface BoardData {
  queue: Schemas['Queue'] | null;
  issues: CardIssue[];
  truncated: boolean;
  users: Schemas['User'][];
}

interface DropAt {
  statusId: number;
  index: number;
}

/**
 * A queue's board: a column per status, the issues as cards in position order. A card
 * moves by drag and drop or by its "Move to" control; the move sends the version the card
 * was read at, so a change made meanwhile by someone else is refused (and told), never
 * overwritten. Others' changes come live (the event stream): a card moves, changes or
 * appears as they make it, and is announced; the card the person is on (dragging it, or
 * the focus in it) waits until they leave it.
 */
export function BoardPage({ queueKey }: { queueKey: string }) {
  const { client, state } = useAuth();
  const me = state.status === 'signed-in' ? state.session.user.id : null;
  const idBase = useId();

  // Issue events that came before the board was read: applied once it is.
  const early = useRef<PublicEvent[]>([]);
  const stream = useEventStream(
    ['issue.*'],
    (event) => {
      if (board.status === 'loaded') onEvent(event);
      else if (board.status === 'loading') early.current.push(event);
    },
    () => void board.reload(),
  );

  const board = useLoad<BoardData>(async () => {
    // The stream first: a change made after this read is then told by it.
    await stream.ready;
    const queues = ok(await client.GET('/api/v1/queues'));
    const queue = queues.find((known) => known.key.toUpperCase() === queueKey.toUpperCase()) ?? null;
    if (!queue) return { queue, issues: [], truncated: false, users: [] };
    const [answer, users] = await Promise.all([client.POST('/api/v1/issues/search', { body: { queue_ids: [queue.id] } }), client.GET('/api/v1/users')]);
    const issues = ok(answer);
    return { queue, issues, truncated: searchSize(answer.response.headers, issues.length).truncated, users: ok(users) };
  }, [client, queueKey]);

  const data = board.status === 'loaded' ? board.data : null;
  const queue = data?.queue ?? null;
  useTitle(data && !queue ? 'Queue not found' : queue ? `${queue.name} board` : `Board ${queueKey}`);

  // Cards as moved here, on top of the board as read; a new read is the truth again, but for moves it has not caught up with.
  const [moved, setMoved] = useState<ReadonlyMap<number, CardIssue>>(new Map());
  // Cards as others changed them (the stream), on top of the read, likewise until a read catches up.
  const [live, setLive] = useState<ReadonlyMap<number, LiveCard>>(new Map());
  useEffect(() => {
    setMoved((cards) => stillMoved(cards, data?.issues ?? []));
    setLive((cards) => liveKept(cards, data?.issues ?? []));
  }, [data]);
  const [pending, setPending] = useState<ReadonlySet<number>>(new Set());
  const [problems, setProblems] = useState<Readonly<Record<number, string>>>({});
  const [announcement, setAnnouncement] = useState('');
  const [dragging, setDragging] = useState<number | null>(null);
  const [dropAt, setDropAt] = useState<DropAt | null>(null);
  const [focused, setFocused] = useState<number | null>(null);
  /** What others did to the cards the person is on, said on the card until it catches up. */
  const [waiting, setWaiting] = useState<Readonly<Record<number, string>>>({});
  const focusAfterMove = useRef<number | null>(null);

  const liveRef = useRef(live);
  liveRef.current = live;
  // The cards the person is on, each with its live state when they came to it.
  const heldAt = useRef<ReadonlyMap<number, LiveCard | undefined>>(new Map());
  const held = useMemo(() => {
    const next = new Map<number, LiveCard | undefined>();
    for (const id of [dragging, focused]) {
      if (id !== null) next.set(id, heldAt.current.has(id) ? heldAt.current.get(id) : liveRef.current.get(id));
    }
    heldAt.current = next;
    return next;
  }, [dragging, focused]);
  const issues = useMemo(() => (data ? shownCards<CardIssue>(data.issues, live, moved, pending, held) : []), [data, live, moved, pending, held]);
  // The cards by id, built once per change of the cards rather than for every event of the workspace.
  const shownById = useMemo(() => new Map(issues.map((issue) => [issue.id, issue])), [issues]);
  const shownRef = useRef(shownById);
  shownRef.current = shownById;
  const statuses = useMemo(() => (queue ? [...queue.statuses].sort((a, b) => a.position - b.position) : []), [queue]);
  const columns = useMemo(() => columnsOf(statuses, issues), [statuses, issues]);
  const names = useMemo(() => new Map(data?.users.map((user) => [user.id, user.name])), [data]);
  const movable = queue !== null && queue.role !== 'read-only';

  /** Another's change to an issue of this queue: the card shows it (or, held, waits), and it is said. */
  function onEvent(event: PublicEvent) {
    if ((event.type !== 'issue.created' && event.type !== 'issue.updated') || !queue) return;
    const applied = applyIssueEvent(liveRef.current, shownRef.current, queue.id, event.data.issue);
    if (!applied) return;
    liveRef.current = applied.live;
    setLive(applied.live);
    if (!applied.change) return;
    const actor = event.data.actor_id;
    const who = actor === null ? 'someone' : actor === me ? 'you' : (names.get(actor) ?? 'someone');
    const status = statuses.find((known) => known.id === applied.change!.statusId)?.name ?? 'another status';
    const waits = held.has(event.data.issue.id);
    setAnnouncement(boardChangeInWords(applied.change, status, who, waits));
    if (waits) setWaiting((now) => ({ ...now, [event.data.issue.id]: waitingInWords(applied.change!, status, who) }));
  }

  // The events that came while the board was read, once it is.
  useEffect(() => {
    if (!data) return;
    const told = early.current;
    early.current = [];
    told.forEach(onEvent);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data]);

  // A card left: what waited is drawn now, and its note goes.
  useEffect(() => {
    setWaiting((now) => {
      const ids = Object.keys(now).map(Number);
      if (ids.every((id) => held.has(id))) return now;
      return Object.fromEntries(Object.entries(now).filter(([id]) => held.has(Number(id))));
    });
  }, [held]);

  // A card moved by keyboard lands in another column (a new element): its "Move to" takes the focus back.
  useEffect(() => {
    const issueId = focusAfterMove.current;
    if (issueId === null) return;
    const control = document.getElementById(moveControlId(idBase, issueId));
    if (control && document.activeElement !== control) control.focus();
    if (control && !pending.has(issueId)) focusAfterMove.current = null;
  }, [idBase, pending]);

  const move = async (issue: CardIssue, toStatusId: number, position: number | undefined, by: 'keyboard' | 'pointer') => {
    const request = moveRequest(issue, toStatusId, position);
    const status = statuses.find((known) => known.id === toStatusId);
    if (!request || !status) return;
    if (by === 'keyboard') focusAfterMove.current = issue.id;
    setAnnouncement('');
    setProblems(({ [issue.id]: _, ...rest }) => rest);
    setPending((ids) => new Set(ids).add(issue.id));
    const column = columns.find((known) => known.status.id === toStatusId)?.cards.filter((card) => card.id !== issue.id) ?? [];
    const shownAt = position ?? (column.length ? column[column.length - 1]!.position + 1 : 1);
    setMoved((cards) => new Map(cards).set(issue.id, { ...issue, status_id: toStatusId, position: shownAt }));
    try {
      const updated = ok(await client.PATCH('/api/v1/issues/{key}', { params: { path: { key: issue.key } }, body: request }));
      setMoved((cards) => new Map(cards).set(issue.id, { ...issue, ...updated }));
      setAnnouncement(toStatusId === issue.status_id ? `${issue.key} moved within ${status.name}.` : `${issue.key} moved to ${status.name}.`);
    } catch (error) {
      const words = error instanceof ProblemError ? moveProblem(error.problem, issue.key, status.name) : messageOf(error);
      setProblems((shown) => ({ ...shown, [issue.id]: words }));
      // The card goes back to where the issue really is, as is everything else that changed.
      await board.reload();
    } finally {
      setPending((ids) => {
        const rest = new Set(ids);
        rest.delete(issue.id);
        return rest;
      });
    }
  };

  /** Where in the column under the pointer the dragged card would land, among the column's other cards. */
  const dropPlace = (event: DragEvent<HTMLElement>, statusId: number): DropAt => {
    const cards = [...event.currentTarget.querySelectorAll<HTMLElement>('li[data-issue-id]')].filter((card) => Number(card.dataset.issueId) !== dragging);
    const middles = cards.map((card) => {
      const box = card.getBoundingClientRect();
      return box.top + box.height / 2;
    });
    return { statusId, index: dropIndex(middles, event.clientY) };
  };

  const dragOver = (event: DragEvent<HTMLElement>, statusId: number) => {
    if (dragging === null) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    const place = dropPlace(event, statusId);
    if (place.statusId !== dropAt?.statusId || place.index !== dropAt.index) setDropAt(place);
  };

  const drop = (event: DragEvent<HTMLElement>, statusId: number) => {
    event.preventDefault();
    const issue = issues.find((known) => known.id === dragging);
    const place = dropPlace(event, statusId);
    setDragging(null);
    setDropAt(null);
    if (!issue) return;
    const column = columns.find((known) => known.status.id === statusId)!.cards;
    if (statusId === issue.status_id && staysInPlace(column, issue.id, place.index)) return;
    const others = column.filter((card) => card.id !== issue.id);
    void move(issue, statusId, dropPosition(others, place.index), 'pointer');
  };

  const lostProblems = Object.entries(problems).filter(([id]) => !issues.some((issue) => issue.id === Number(id)));

  return (
    <>
      <div className="issues-head">
        <PageHeading>{data && !queue ? 'Queue not found' : queue ? `${queue.name} (${queue.key})` : `Board ${queueKey}`}</PageHeading>
        {queue && (
          <nav className="board-nav" aria-label="This queue">
            <Link to={`${PAGES.issues}?queue=${encodeURIComponent(queue.key)}`}>Issues of {queue.key} as a list</Link>
            {queue.role === 'admin' && <Link to={pathTo('permissions', { key: queue.key })}>Permissions</Link>}
          </nav>
        )}
      </div>
      <Loading
        loaded={board}
        what="the board"
        render={() =>
          !queue ? (
            <div className="card">
              <p>There is no queue with the key {queueKey}, or it is not visible to you.</p>
              <p>
                <Link to={PAGES.issues}>Back to the issues</Link>
              </p>
            </div>
          ) : (
            <>
              {queue.description && <p className="lead">{queue.description}</p>}
              <p className="hint">
                {movable
                  ? 'Move a card by dragging it to another column or place, or with its “Move to” control.'
                  : 'Your role on this queue is read-only: you can see its board, but not move its issues.'}
              </p>
              {data?.truncated && <p className="hint">This board shows the 2000 most recently changed issues of the queue.</p>}
              <p className="status" role="status">
                {announcement}
              </p>
              {lostProblems.map(([id, words]) => (
                <Alert key={id}>{words}</Alert>
              ))}
              <div className="board">
                {columns.map(({ status, cards }) => {
                  const headingId = `${idBase}-status-${status.id}`;
                  const target = dropAt?.statusId === status.id ? dropAt : null;
                  const others = cards.filter((card) => card.id !== dragging);
                  return (
                    <section
                      key={status.id}
                      className={`board-column${target ? ' drop-target' : ''}`}
                      aria-labelledby={headingId}
                      onDragOver={(event) => dragOver(event, status.id)}
                      onDragLeave={(event) => {
                        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropAt(null);
                      }}
                      onDrop={(event) => drop(event, status.id)}
                    >
                      <h2 className={`board-column-heading issue-category-${status.category}`}>
                        <span id={headingId}>{status.name}</span>
                        <span className="board-column-count">
                          {cards.length}
                          <span className="visually-hidden"> {cards.length === 1 ? 'issue' : 'issues'}</span>
                        </span>
                      </h2>
                      <ol className={`board-column-cards${target && target.index >= others.length ? ' drop-end' : ''}`}>
                        {cards.map((issue) => (
                          <BoardCard
                            key={issue.id}
                            idBase={idBase}
                            issue={issue}
                            assignee={issue.assignee_id === null ? null : (names.get(issue.assignee_id) ?? `User ${issue.assignee_id}`)}
                            statuses={statuses}
                            movable={movable}
                            pending={pending.has(issue.id)}
                            problem={problems[issue.id]}
                            waiting={waiting[issue.id]}
                            onFocusIn={() => setFocused(issue.id)}
                            onFocusOut={() => setFocused((now) => (now === issue.id ? null : now))}
                            dropBefore={target !== null && issue.id !== dragging && others[target.index]?.id === issue.id}
                            onMove={(statusId) => void move(issue, statusId, undefined, 'keyboard')}
                            onDragStart={(event) => {
                              event.dataTransfer.effectAllowed = 'move';
                              event.dataTransfer.setData('text/plain', issue.key);
                              setDragging(issue.id);
                            }}
                            onDragEnd={() => {
                              setDragging(null);
                              setDropAt(null);
                            }}
                          />
                        ))}
                      </ol>
                      {cards.length === 0 && <p className="board-column-empty">No issues</p>}
                    </section>
                  );
                })}
              </div>
            </>
          )
        }
      />
    </>
  );
}
