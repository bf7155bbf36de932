import { useRef, useState, type ReactNode } from 'react';
import { counted, listView, withPage } from '../rules/issue-lists';
import { Alert, Empty, messageOf } from '../ui';

export interface ListPage<T> {
  items: T[];
  next_after_id: number | null;
}

/**
 * One list of an issue (comments, worklogs, history, links, subtasks) under its h2: the
 * newest items the issue read carried, and, when there are more, how many are not shown
 * with a button that reads the list from its start a page at a time. `children` (a form
 * to add to the list) comes after it, where the newest items are.
 */
export function IssueListSection<T>({
  id,
  title,
  items,
  total,
  one,
  many,
  empty,
  loadPage,
  renderItem,
  intro,
  children,
}: {
  id: string;
  title: string;
  /** The newest items, oldest first, as the issue read carries them. */
  items: T[];
  total: number;
  /** The list's noun, one and many: "comment", "comments". */
  one: string;
  many: string;
  empty: string;
  loadPage: (afterId: number) => Promise<ListPage<T>>;
  /** One `<li>`; `position` is the item's place in the whole list (a key when the item has no id). */
  renderItem: (item: T, position: number) => ReactNode;
  intro?: ReactNode;
  children?: ReactNode;
}) {
  const [head, setHead] = useState<T[]>([]);
  const [cursor, setCursor] = useState<number | null>(0);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState('');
  const headingRef = useRef<HTMLHeadingElement>(null);
  const view = listView(head, items, total);
  const headingId = `${id}-heading`;

  const showEarlier = async () => {
    if (busy || cursor === null) return;
    setBusy(true);
    setProblem('');
    try {
      const next = withPage(head, await loadPage(cursor));
      setHead(next.head);
      setCursor(next.cursor);
      // The button goes once all is shown: the focus goes to the list's heading, not to the page's start.
      if (next.cursor === null || listView(next.head, items, total).hidden === 0) headingRef.current?.focus();
    } catch (error) {
      setProblem(`The earlier ${many} could not be loaded: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="issue-section">
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {title}
      </h2>
      {intro}
      {view.head.length + view.tail.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <>
          {view.head.length > 0 && <ol className="issue-list">{view.head.map((item, index) => renderItem(item, index))}</ol>}
          {view.hidden > 0 && (
            <div className="issue-list-gap">
              <p>{counted(view.hidden, `earlier ${one} is`, `earlier ${many} are`)} not shown.</p>
              {cursor !== null && (
                <button type="button" className="secondary" onClick={showEarlier} aria-busy={busy || undefined}>
                  Show earlier {many}
                </button>
              )}
              <Alert>{problem}</Alert>
            </div>
          )}
          {view.tail.length > 0 && <ol className="issue-list">{view.tail.map((item, index) => renderItem(item, view.tailStart + index))}</ol>}
        </>
      )}
      {children}
    </section>
  );
}
