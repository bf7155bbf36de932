import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok } from '../http';
import { NewIssueForm } from '../components/NewIssueForm';
import { PRIORITIES, PRIORITY_NAMES, type Priority } from '../rules/issue-fields';
import { navigate, replaceQuery, useLocation } from '../router';
import {
  applicableFilters,
  CATEGORIES,
  CATEGORY_NAMES,
  filtersFromQuery,
  isFiltered,
  isOverdue,
  LABEL_MAX,
  NO_FILTERS,
  queryFromFilters,
  SEARCH_MAX,
  searchBody,
  searchSize,
  type Category,
  type IssueFilters,
} from '../rules/issue-filters';
import { Alert, Empty, IssueLink, Link, Loading, messageOf, PageHeading, useLoad, useTitle } from '../ui';

/** Rows shown at first, and added by each "Load more": the search answers up to 2000 at once. */
const PAGE_SIZE = 50;
/** How long typing rests before the search runs. */
const TYPING_PAUSE_MS = 350;

const dueFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dueInWords = (due: string) => dueFormat.format(new Date(`${due}T00:00:00Z`));

interface Lists {
  queues: Schemas['Queue'][];
  users: Schemas['User'][];
}

interface Results {
  issues: Schemas['IssueSummary'][];
  total: number;
  truncated: boolean;
}

const issuesInWords = (count: number) => `${count} ${count === 1 ? 'issue' : 'issues'}`;

export function IssuesPage() {
  useTitle('Issues');
  const { client } = useAuth();
  const { search } = useLocation();
  const formId = useId();

  const lists = useLoad<Lists>(async () => {
    const [queues, users] = await Promise.all([client.GET('/api/v1/queues'), client.GET('/api/v1/users')]);
    return { queues: ok(queues), users: ok(users) };
  }, [client]);
  const loaded = lists.status === 'loaded' ? lists.data : null;

  // The address holds the view; what it asks for that this person cannot use is dropped, and said to be.
  const asked = useMemo(() => filtersFromQuery(search), [search]);
  const { filters, ignored } = useMemo(
    () =>
      applicableFilters(
        asked,
        loaded?.queues ?? null,
        loaded?.users.map((user) => user.id) ?? null,
      ),
    [asked, loaded],
  );

  // The two text filters are typed, then applied when typing rests (or on Enter).
  const [searchText, setSearchText] = useState(asked.search);
  const [labelText, setLabelText] = useState(asked.label);
  const searchRef = useRef<HTMLInputElement>(null);
  const labelRef = useRef<HTMLInputElement>(null);

  const apply = (changes: Partial<IssueFilters>) => {
    const next = queryFromFilters({ ...filters, search: searchText, label: labelText, ...changes });
    if (next.toString() !== new URLSearchParams(window.location.search).toString()) replaceQuery(next);
  };
  const applyRef = useRef(apply);
  applyRef.current = apply;

  useEffect(() => {
    if (searchText.trim() === asked.search && labelText.trim() === asked.label) return;
    const timer = setTimeout(() => applyRef.current({}), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [searchText, labelText, asked.search, asked.label]);

  // The address changed from elsewhere (a link, "Clear filters"): the boxes show it, unless being typed in.
  useEffect(() => {
    if (document.activeElement !== searchRef.current) setSearchText(asked.search);
    if (document.activeElement !== labelRef.current) setLabelText(asked.label);
  }, [asked.search, asked.label]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply({});
  };

  const clear = () => {
    setSearchText('');
    setLabelText('');
    replaceQuery(queryFromFilters(NO_FILTERS));
  };

  // The search: the results on show stay until the next ones are there, so nothing jumps.
  const body = loaded ? JSON.stringify(searchBody(filters, loaded.queues)) : null;
  const [results, setResults] = useState<Results | null>(null);
  const [resultsProblem, setResultsProblem] = useState('');
  const [searching, setSearching] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [shown, setShown] = useState(PAGE_SIZE);
  const firstNewRow = useRef<number | null>(null);

  useEffect(() => {
    if (body === null) return;
    let current = true;
    setSearching(true);
    void (async () => {
      try {
        const answer = await client.POST('/api/v1/issues/search', { body: JSON.parse(body) as Schemas['Filters'] });
        const issues = ok(answer);
        if (!current) return;
        setResults({ issues, ...searchSize(answer.response.headers, issues.length) });
        setResultsProblem('');
        setShown(PAGE_SIZE);
      } catch (error) {
        if (current) setResultsProblem(messageOf(error));
      } finally {
        if (current) setSearching(false);
      }
    })();
    return () => {
      current = false;
    };
  }, [client, body, attempt]);

  // After "Load more", the first row added takes the focus, so the keyboard goes on from there.
  useEffect(() => {
    if (firstNewRow.current === null) return;
    document.getElementById(`${formId}-row-${firstNewRow.current}`)?.querySelector('a')?.focus();
    firstNewRow.current = null;
  }, [shown, formId]);

  const [creating, setCreating] = useState(false);
  const newIssueButton = useRef<HTMLButtonElement>(null);
  const writable = loaded?.queues.filter((queue) => queue.role !== 'read-only') ?? [];
  const queueOfFilter = writable.find((queue) => queue.key === filters.queue);

  const closeForm = () => {
    setCreating(false);
    requestAnimationFrame(() => newIssueButton.current?.focus());
  };

  const userNames = useMemo(() => new Map(loaded?.users.map((user) => [user.id, user.name])), [loaded]);
  const people = useMemo(() => [...(loaded?.users ?? [])].sort((a, b) => a.name.localeCompare(b.name)), [loaded]);
  const today = new Date();

  return (
    <>
      <div className="issues-head">
        <PageHeading>Issues</PageHeading>
        {writable.length > 0 && (
          <button
            type="button"
            ref={newIssueButton}
            aria-expanded={creating}
            aria-controls={creating ? `${formId}-new` : undefined}
            onClick={() => (creating ? closeForm() : setCreating(true))}
          >
            New issue
          </button>
        )}
      </div>

      {creating && writable.length > 0 && (
        <NewIssueForm
          id={`${formId}-new`}
          queues={writable}
          initialQueueId={(queueOfFilter ?? writable[0]!).id}
          onCancel={closeForm}
          onCreated={(issue) => navigate(pathTo('issue', { key: issue.key }))}
        />
      )}

      <Loading
        loaded={lists}
        what="the queues and people"
        render={({ queues }) => (
          <>
            {loaded && writable.length === 0 && (
              <p className="hint">{queues.length === 0 ? 'You have no access to any queue yet: ask an admin for a role on one.' : 'Your roles let you read issues but not create them.'}</p>
            )}
            <search className="card issue-filters" aria-label="Filter issues">
              <form onSubmit={submit} noValidate>
                <div className="issues-filter-grid">
                  <div className="field issues-filter-search">
                    <label htmlFor={`${formId}-search`}>Search</label>
                    <input
                      id={`${formId}-search`}
                      ref={searchRef}
                      type="search"
                      maxLength={SEARCH_MAX}
                      aria-describedby={`${formId}-search-hint`}
                      value={searchText}
                      onChange={(e) => setSearchText(e.target.value)}
                    />
                    <p id={`${formId}-search-hint`} className="help">
                      Words in the key, title, description or comments.
                    </p>
                  </div>
                  <div className="field">
                    <label htmlFor={`${formId}-queue`}>Queue</label>
                    <select id={`${formId}-queue`} value={filters.queue ?? ''} onChange={(e) => apply({ queue: e.target.value || null })}>
                      <option value="">All queues</option>
                      {queues.map((queue) => (
                        <option key={queue.id} value={queue.key}>
                          {queue.name} ({queue.key})
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${formId}-category`}>Status category</label>
                    <select id={`${formId}-category`} value={filters.category ?? ''} onChange={(e) => apply({ category: (e.target.value || null) as Category | null })}>
                      <option value="">Any</option>
                      {CATEGORIES.map((category) => (
                        <option key={category} value={category}>
                          {CATEGORY_NAMES[category]}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${formId}-assignee`}>Assignee</label>
                    <select id={`${formId}-assignee`} value={filters.assignee ?? ''} onChange={(e) => apply({ assignee: e.target.value ? Number(e.target.value) : null })}>
                      <option value="">Anyone</option>
                      {people.map((user) => (
                        <option key={user.id} value={user.id}>
                          {user.name}
                          {user.active ? '' : ' (deactivated)'}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${formId}-priority`}>Priority</label>
                    <select id={`${formId}-priority`} value={filters.priority ?? ''} onChange={(e) => apply({ priority: (e.target.value || null) as Priority | null })}>
                      <option value="">Any</option>
                      {PRIORITIES.map((priority) => (
                        <option key={priority} value={priority}>
                          {PRIORITY_NAMES[priority]}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${formId}-label`}>Label</label>
                    <input id={`${formId}-label`} ref={labelRef} type="text" maxLength={LABEL_MAX} autoComplete="off" value={labelText} onChange={(e) => setLabelText(e.target.value)} />
                  </div>
                </div>
                <div className="issues-filter-flags">
                  <div className="issues-filter-check">
                    <input id={`${formId}-mine`} type="checkbox" checked={filters.mine} aria-describedby={`${formId}-mine-hint`} onChange={(e) => apply({ mine: e.target.checked })} />
                    <label htmlFor={`${formId}-mine`}>Mine</label>
                    <span id={`${formId}-mine-hint`} className="help">
                      assigned to me
                    </span>
                  </div>
                  <div className="issues-filter-check">
                    <input id={`${formId}-overdue`} type="checkbox" checked={filters.overdue} aria-describedby={`${formId}-overdue-hint`} onChange={(e) => apply({ overdue: e.target.checked })} />
                    <label htmlFor={`${formId}-overdue`}>Overdue</label>
                    <span id={`${formId}-overdue-hint`} className="help">
                      due before today, not done
                    </span>
                  </div>
                  <button type="submit" className="secondary">
                    Apply
                  </button>
                  {isFiltered(asked) && (
                    <button type="button" className="secondary" onClick={clear}>
                      Clear filters
                    </button>
                  )}
                </div>
              </form>
            </search>
            {ignored.length > 0 && (
              <p className="hint" role="note">
                {ignored.includes('queue') && `The address names the queue ${asked.queue}, which does not exist or is not visible to you: issues of every queue are shown. `}
                {ignored.includes('assignee') && 'The address names an assignee who is not in this workspace: issues of anyone are shown.'}
              </p>
            )}
          </>
        )}
      />

      <section className="issue-results" aria-labelledby={`${formId}-results`} aria-busy={searching}>
        <h2 id={`${formId}-results`} className="visually-hidden">
          Results
        </h2>
        <p className="issues-count" role="status">
          {results && !searching && `${results.truncated ? `${results.total}+ issues match; the ${results.issues.length} changed most recently are listed.` : `${issuesInWords(results.total)} ${results.total === 1 ? 'matches' : 'match'}.`}`}
          {searching && results && 'Searching…'}
        </p>
        {resultsProblem && (
          <div className="alert" role="alert">
            <p>The issues could not be loaded: {resultsProblem}</p>
            <button type="button" className="secondary" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </button>
          </div>
        )}
        {loaded && !results && !resultsProblem && <p className="loading">Loading issues…</p>}
        {results && results.issues.length === 0 && (
          <Empty>{isFiltered(filters) ? 'No issues match these filters. Change or clear them to see more.' : 'No issues yet in the queues you can see.'}</Empty>
        )}
        {results && results.issues.length > 0 && (
          <>
            <table className="data issue-table">
              <caption className="visually-hidden">Issues, the most recently changed first</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Due</th>
                </tr>
              </thead>
              <tbody>
                {results.issues.slice(0, shown).map((issue, index) => (
                  <tr key={issue.id} id={`${formId}-row-${index}`}>
                    <th scope="row" data-label="Key">
                      <IssueLink issueKey={issue.key} />
                    </th>
                    <td data-label="Title" className="issue-title">
                      {issue.title}
                    </td>
                    <td data-label="Status">
                      <span className={`issue-category issue-category-${issue.status.category}`}>{issue.status.name}</span>
                    </td>
                    <td data-label="Assignee">{issue.assignee_id === null ? <span className="hint">Unassigned</span> : (userNames.get(issue.assignee_id) ?? `User ${issue.assignee_id}`)}</td>
                    <td data-label="Priority">
                      <span className={`issue-priority issue-priority-${issue.priority}`}>{PRIORITY_NAMES[issue.priority]}</span>
                    </td>
                    <td data-label="Due">
                      {issue.due_date ? (
                        <span className="issue-due">
                          {dueInWords(issue.due_date)}
                          {isOverdue(issue, today) && <span className="issue-overdue"> Overdue</span>}
                        </span>
                      ) : (
                        <span className="hint">None</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {results.issues.length > shown && (
              <div className="issues-load-more">
                <p className="help" id={`${formId}-shown`}>
                  Showing {shown} of {results.issues.length}.
                </p>
                <button
                  type="button"
                  className="secondary"
                  aria-describedby={`${formId}-shown`}
                  onClick={() => {
                    firstNewRow.current = shown;
                    setShown((n) => n + PAGE_SIZE);
                  }}
                >
                  Load more
                </button>
              </div>
            )}
          </>
        )}
      </section>
      {loaded && loaded.queues.length > 0 && (
        <nav className="board-links" aria-labelledby={`${formId}-boards`}>
          <h2 id={`${formId}-boards`}>Boards</h2>
          <ul>
            {loaded.queues.map((queue) => (
              <li key={queue.id}>
                <Link to={pathTo('board', { key: queue.key })}>
                  {queue.name} ({queue.key})
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </>
  );
}
