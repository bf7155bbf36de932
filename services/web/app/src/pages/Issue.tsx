import { useEffect, useRef, useState, type FormEvent, type MutableRefObject } from 'react';
import type { IssueDetails, PublicEvent, Schemas, TrackerClient } from '@tracker/client';
import { PAGES, pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { CommentForm, SubtaskForm, WorklogForm } from '../components/IssueAddForms';
import { IssueDetailsForm, type Conflict, type MergeNote } from '../components/IssueDetailsForm';
import { IssueListSection } from '../components/IssueListSection';
import { ok, ProblemError } from '../http';
import { useEventStream } from '../live';
import {
  changedFields,
  DRAFT_FIELDS,
  draftOf,
  draftProblems,
  FIELD_NAMES,
  fieldOfPath,
  isStaleEdit,
  rebase,
  updateBody,
  withFreshLists,
  type Draft,
  type DraftField,
  type DraftProblems,
} from '../rules/issue-edit';
import { capitalised, describeChange, minutesInWords, type Names } from '../rules/issue-history';
import { decideLive, isNewer, isNewItem, issueChangeInWords } from '../rules/live-issue';
import { IssueLink, Link, Loading, messageOf, PageHeading, Status, useLoad, useTitle, type Loaded } from '../ui';

type User = Schemas['User'];
type Queue = Schemas['Queue'];

/** The issue as read, with the ETag of that read (sent back in If-Match). */
interface HeldIssue {
  issue: IssueDetails;
  etag: string | null;
}

interface IssueData extends HeldIssue {
  /** The issue's queue with its statuses and the person's role on it; null if it could not be read. */
  queue: Queue | null;
  users: User[] | null;
}

/** What a comment, a worklog or a subtask changes of an issue read: its lists, not its fields. */
const LISTS = [
  'comments',
  'comments_total',
  'worklogs',
  'worklogs_total',
  'history',
  'history_total',
  'links',
  'links_total',
  'subtasks',
  'subtasks_total',
  'spent_minutes',
  'updated_at',
] as const satisfies ReadonlyArray<keyof IssueDetails>;

const PAGE_SIZE = 50;

async function readIssue(client: TrackerClient, key: string): Promise<HeldIssue> {
  const answer = await client.GET('/api/v1/issues/{key}', { params: { path: { key } } });
  return { issue: ok(answer), etag: answer.response.headers.get('ETag') };
}

/** A key that names no issue the person can read: the API's 404 (or a key that is no key at all, 422). */
const isMissing = (error: unknown) => error instanceof ProblemError && (error.problem.status === 404 || error.problem.status === 422);

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dayOf = (isoDate: string) => {
  const date = new Date(`${isoDate}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDate : day.format(date);
};
const When = ({ at }: { at: string }) => <time dateTime={at}>{dateTime.format(new Date(at))}</time>;

/** What the issue's view does with the live events; until it is drawn they wait. */
interface LiveLink {
  view: { onEvent: (event: PublicEvent) => void; onStart: () => void } | null;
  early: PublicEvent[];
}

/** The live events the issue page follows: its own changes, its lists, its subtasks. */
const ISSUE_EVENTS = ['issue.*', 'comment.added', 'worklog.added'];

export function IssuePage({ issueKey }: { issueKey: string }) {
  const { client } = useAuth();
  const live = useRef<LiveLink>({ view: null, early: [] });
  const stream = useEventStream(
    ISSUE_EVENTS,
    (event) => {
      if (live.current.view) live.current.view.onEvent(event);
      // Until the view is drawn (its effect runs after the load's render), the events wait.
      else if (loaded.status !== 'failed') live.current.early.push(event);
    },
    () => (live.current.view ? live.current.view.onStart() : void loaded.reload()),
  );
  const loaded = useLoad<IssueData>(async () => {
    // The stream first: a change made after this read is then told by it.
    await stream.ready;
    const [held, queues, users] = await Promise.all([
      readIssue(client, issueKey),
      // Without them the page still shows the issue: statuses and names by id, and the API judges each write.
      client
        .GET('/api/v1/queues')
        .then(ok)
        .catch(() => null),
      client
        .GET('/api/v1/users')
        .then(ok)
        .catch(() => null),
    ]);
    return { ...held, queue: queues?.find((queue) => queue.id === held.issue.queue_id) ?? null, users };
  }, [client, issueKey]);

  if (loaded.status === 'loaded') return <IssueView data={loaded.data} live={live} />;
  if (loaded.status === 'failed' && isMissing(loaded.error)) return <MissingIssue issueKey={issueKey} />;
  return <IssueLoading issueKey={issueKey} loaded={loaded} />;
}

function IssueLoading({ issueKey, loaded }: { issueKey: string; loaded: Loaded<IssueData> & { reload: () => Promise<void> } }) {
  useTitle(loaded.status === 'failed' ? `Issue ${issueKey} could not be loaded` : `Issue ${issueKey}`);
  return (
    <div className="issue-page">
      <PageHeading>{issueKey}</PageHeading>
      <div className="issue-placeholder">
        <Loading loaded={loaded} what="the issue" render={() => null} />
      </div>
    </div>
  );
}

function MissingIssue({ issueKey }: { issueKey: string }) {
  const words = `No issue ${issueKey}, or you cannot see it`;
  useTitle(words);
  return (
    <div className="issue-page">
      <PageHeading>{words}</PageHeading>
      <p>There is no issue with this key, or its queue is not shared with you. Check the key, or ask an admin of the queue for access.</p>
      <p>
        <Link to={PAGES.issues}>Go to the issues list</Link>
      </p>
    </div>
  );
}

/** A field's value in words, for telling what someone else changed. */
function draftValueInWords(field: DraftField, draft: Draft, userName: (id: number) => string): string {
  switch (field) {
    case 'title':
      return `“${draft.title}”`;
    case 'description':
      return draft.description ? 'a new text' : 'empty';
    case 'type':
      return `“${draft.type}”`;
    case 'parent':
      return draft.parent || 'none';
    case 'assignee':
      return draft.assignee === '' ? 'nobody' : userName(Number(draft.assignee));
    case 'priority':
      return capitalised(draft.priority);
    case 'labels':
      return draft.labels || 'none';
    case 'dueDate':
      return draft.dueDate ? dayOf(draft.dueDate) : 'none';
    case 'estimate':
      return minutesInWords(Number(draft.estimate));
  }
}

function IssueView({ data, live }: { data: IssueData; live: MutableRefObject<LiveLink> }) {
  const { client, state } = useAuth();
  const me = state.status === 'signed-in' ? state.session.user.id : null;
  const [held, setHeld] = useState<HeldIssue>({ issue: data.issue, etag: data.etag });
  const heldRef = useRef(held);
  const adopt = (next: HeldIssue) => {
    heldRef.current = next;
    setHeld(next);
  };
  // The keys of parent issues this page resolved: the API names a parent by its id only.
  const parentKeys = useRef(new Map<number, string>());
  const draftOfIssue = (of: IssueDetails) => draftOf(of, of.parent_id === null ? undefined : parentKeys.current.get(of.parent_id));
  const [draft, setDraft] = useState<Draft>(() => draftOfIssue(data.issue));
  const draftRef = useRef(draft);
  draftRef.current = draft;

  const [problems, setProblems] = useState<DraftProblems>({});
  const [formProblem, setFormProblem] = useState('');
  const [saved, setSaved] = useState('');
  const saving = useRef(false);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [reloading, setReloading] = useState(false);
  const [merged, setMerged] = useState<MergeNote | null>(null);
  const mergedRef = useRef<HTMLDivElement | null>(null);
  const fieldRefs = useRef<Partial<Record<DraftField, HTMLElement | null>>>({});
  const [statusPending, setStatusPending] = useState<number | null>(null);
  const [statusProblem, setStatusProblem] = useState('');
  const [statusDone, setStatusDone] = useState('');
  const wantedStatus = useRef<number | null>(null);
  const statusBusy = useRef(false);
  const writes = useRef<Promise<unknown>>(Promise.resolve());
  /** Others' changes taken, said politely. */
  const [liveNote, setLiveNote] = useState('');

  const { issue } = held;
  const key = issue.key;
  useTitle(`${issue.key} ${issue.title}`);

  // After a reload the note of what changed takes the focus: the Reload button is gone.
  useEffect(() => {
    if (merged) mergedRef.current?.focus();
  }, [merged]);

  // Without the person's role the page does not offer changes it cannot tell are allowed.
  const canWrite = data.queue ? data.queue.role !== 'read-only' : false;
  const users = new Map((data.users ?? []).map((user) => [user.id, user]));
  const userName = (id: number) => users.get(id)?.name ?? `User #${id}`;
  const statuses = data.queue?.statuses ?? [{ ...issue.status, queue_id: issue.queue_id, position: 1 }];
  const names: Names = {
    status: (id) => statuses.find((status) => status.id === id)?.name ?? (id === issue.status.id ? issue.status.name : `status #${id}`),
    user: userName,
    date: dayOf,
  };
  const queueKey = key.slice(0, key.lastIndexOf('-'));
  const changed = changedFields(draftOfIssue(issue), draft);

  /**
   * Every change to the issue held (a write, or a read taken in its place) waits for the one
   * before it, so each write is built from the issue as the last one left it: its version and ETag.
   */
  const inTurn = <T,>(run: () => Promise<T>): Promise<T> => {
    const turn = writes.current.then(run);
    writes.current = turn.catch(() => undefined);
    return turn;
  };

  /** A PATCH built, in its turn, from the issue held then (null: nothing to send); the issue after it is held. */
  const patch = (build: (current: IssueDetails) => Schemas['IssueUpdate'] | null) =>
    inTurn(async () => {
      const { issue: before, etag } = heldRef.current;
      const body = build(before);
      if (!body) return null;
      const answer = await client.PATCH('/api/v1/issues/{key}', { params: { path: { key: before.key }, header: etag ? { 'If-Match': etag } : undefined }, body });
      const patched = ok(answer);
      let next: HeldIssue;
      try {
        // Read again for the history and the lists; the answer alone carries the fields and the new tag.
        next = await readIssue(client, before.key);
      } catch {
        next = { issue: { ...before, ...patched }, etag: answer.response.headers.get('ETag') };
      }
      adopt(next);
      return { before, next };
    });

  /** The id of the issue a parent key names (null for an empty key); undefined, with the problem told, when it names none. */
  const parentIdOf = async (typed: string): Promise<number | null | undefined> => {
    const parentKey = typed.trim().toUpperCase();
    if (!parentKey) return null;
    try {
      const parent = (await readIssue(client, parentKey)).issue;
      parentKeys.current.set(parent.id, parent.key);
      return parent.id;
    } catch (error) {
      if (!isMissing(error)) throw error;
      setProblems({ parent: `There is no issue ${parentKey}, or you cannot see it: give the key of an issue you can read (such as ${queueKey}-1), or leave it empty for none.` });
      fieldRefs.current.parent?.focus();
      return undefined;
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (saving.current) return;
    const read = draftOfIssue(heldRef.current.issue);
    const sent = draftRef.current;
    const found = draftProblems(read, sent);
    setProblems(found);
    setSaved('');
    setFormProblem('');
    const first = DRAFT_FIELDS.find((field) => found[field]);
    if (first) {
      fieldRefs.current[first]?.focus();
      return;
    }
    const parentChanged = changedFields(read, sent).includes('parent');
    saving.current = true;
    try {
      const parentId = parentChanged ? await parentIdOf(sent.parent) : undefined;
      if (parentChanged && parentId === undefined) return;
      // Built in its turn: a status change sent just before has moved the version on.
      const result = await patch((current) => updateBody(current.version, draftOfIssue(current), sent, parentId));
      if (!result) {
        setSaved('Nothing to save: no field was changed.');
        return;
      }
      const fields = changedFields(draftOfIssue(result.before), sent);
      // What was typed while the save was under way stays; the rest is the saved issue.
      setDraft((now) => rebase(sent, now, draftOfIssue(result.next.issue)).draft);
      setConflict(null);
      setMerged(null);
      setSaved(`Saved: ${fields.map((field) => FIELD_NAMES[field]).join(', ')}.`);
    } catch (error) {
      if (error instanceof ProblemError && isStaleEdit(error.problem)) {
        setConflict({ kind: 'save', seq: Date.now() });
      } else if (error instanceof ProblemError && error.problem.status === 422 && error.problem.errors?.length) {
        const byField: DraftProblems = {};
        const rest: string[] = [];
        for (const item of error.problem.errors) {
          const field = fieldOfPath(item.path);
          if (field) byField[field] = `${FIELD_NAMES[field]} ${item.message}.`;
          else rest.push(item.message);
        }
        setProblems(byField);
        setFormProblem(rest.length ? `Not saved: ${rest.join('; ')}.` : 'Not saved: a field needs a change, see above.');
      } else {
        setFormProblem(`Not saved: ${messageOf(error)}`);
      }
    } finally {
      saving.current = false;
    }
  };

  const reload = async () => {
    if (reloading) return;
    setReloading(true);
    try {
      const { before, fresh } = await inTurn(async () => {
        const held = heldRef.current.issue;
        const read = await readIssue(client, held.key);
        adopt(read);
        return { before: held, fresh: read };
      });
      const freshDraft = draftOfIssue(fresh.issue);
      const rebased = rebase(draftOfIssue(before), draftRef.current, freshDraft);
      setDraft(rebased.draft);
      const theirs = rebased.theirs.map((field) =>
        field === 'description' ? 'Description' : `${FIELD_NAMES[field]} (now ${draftValueInWords(field, freshDraft, userName)})`,
      );
      if (fresh.issue.status_id !== before.status_id) theirs.unshift(`Status (now ${fresh.issue.status.name})`);
      setMerged({
        theirs,
        mine: rebased.mine,
        clashes: rebased.clashes.map((field) => ({ field, theirs: draftValueInWords(field, freshDraft, userName) })),
      });
      setConflict(null);
      setProblems({});
      setFormProblem('');
      setSaved('');
    } catch (error) {
      setFormProblem(`Their changes could not be loaded: ${messageOf(error)}`);
    } finally {
      setReloading(false);
    }
  };

  /** A status chosen is saved at once; choices made while one is saved (arrow keys) end in the last one. */
  const changeStatus = async (statusId: number) => {
    wantedStatus.current = statusId;
    setStatusPending(statusId);
    if (statusBusy.current) return;
    statusBusy.current = true;
    setStatusProblem('');
    setStatusDone('');
    try {
      while (wantedStatus.current !== null) {
        const target = wantedStatus.current;
        wantedStatus.current = null;
        try {
          const result = await patch((current) => (target === current.status_id ? null : { version: current.version, status_id: target }));
          if (!result) continue;
          const { before, next } = result;
          setDraft((now) => rebase(draftOfIssue(before), now, draftOfIssue(next.issue)).draft);
          setStatusDone(`Status changed to ${next.issue.status.name}.`);
        } catch (error) {
          wantedStatus.current = null;
          const name = statuses.find((status) => status.id === target)?.name ?? 'the new one';
          if (error instanceof ProblemError && isStaleEdit(error.problem)) setConflict({ kind: 'status', wanted: name, seq: Date.now() });
          else setStatusProblem(`The status was not changed to ${name}: ${messageOf(error)}`);
        }
      }
    } finally {
      statusBusy.current = false;
      setStatusPending(null);
    }
  };

  /** Who made a change, for the words: null when it was the person, elsewhere. */
  const whoDid = (actor: number | null | undefined): string | null => (actor === me && me !== null ? null : actor ? userName(actor) : 'Someone');

  /**
   * A fresh read of the issue, held against what the page holds: the lists always; the
   * fields when newer, unless the person has unsaved edits of fields it changed (then they
   * are told, and Reload takes it keeping what they typed). `actor` made the change, when
   * an event told it; `said` is what they did to the lists ("added a comment").
   */
  const takeFresh = (fresh: HeldIssue, actor?: number | null, said?: string) => {
    const before = heldRef.current;
    const who = whoDid(actor);
    let words: string | null = null;
    if (!isNewer(fresh.issue.version, before.issue.version)) {
      const { issue: next } = withFreshLists(before.issue, fresh.issue, LISTS);
      // The ETag goes with the fields: the fresh one only when its fields are the ones held.
      adopt({ issue: next, etag: next === fresh.issue ? fresh.etag : before.etag });
    } else {
      const read = draftOfIssue(before.issue);
      const freshDraft = draftOfIssue(fresh.issue);
      const decision = decideLive(read, draftRef.current, freshDraft);
      if (decision.kind === 'conflict') {
        adopt({ issue: withFreshLists(before.issue, fresh.issue, LISTS).issue, etag: before.etag });
        setConflict({ kind: 'live', who, fields: decision.fields, seq: Date.now() });
        setLiveNote(''); // the alert tells it
      } else {
        adopt(fresh);
        setDraft((now) => rebase(read, now, freshDraft).draft);
        setConflict((now) => (now?.kind === 'live' ? null : now));
        const status = fresh.issue.status_id !== before.issue.status_id ? fresh.issue.status.name : null;
        words = issueChangeInWords(who ?? 'You', decision.theirs, status);
      }
    }
    if (said && who) words = words ? `${words} ${who} ${said}.` : `${who} ${said}.`;
    if (words) setLiveNote(words);
  };

  /** After a comment, a worklog or a subtask: the lists read again (and the fields, as any fresh read). */
  const refresh = async () => {
    try {
      await inTurn(async () => takeFresh(await readIssue(client, key)));
    } catch {
      // The write stands; the lists catch up at the next read.
    }
  };

  /**
   * Another's change told by the stream: in its turn after the person's own writes (so
   * theirs coming back are known by their version or id, and dropped), the issue is read
   * again if the change is still news.
   */
  const liveRead = (isNews: (held: IssueDetails) => boolean, actor?: number | null, said?: string) =>
    inTurn(async () => {
      if (!isNews(heldRef.current.issue)) return;
      takeFresh(await readIssue(client, heldRef.current.issue.key), actor, said);
    }).catch(() => undefined);

  const onLiveEvent = (event: PublicEvent) => {
    const shown = heldRef.current.issue;
    switch (event.type) {
      case 'issue.created':
      case 'issue.updated': {
        const changed = event.data.issue;
        if (changed.id === shown.id) void liveRead((held) => isNewer(changed.version, held.version), event.data.actor_id);
        // A subtask made or changed: the list shows its title and status.
        else if (changed.parent_id === shown.id || shown.subtasks.some((subtask) => subtask.id === changed.id)) void liveRead(() => true);
        return;
      }
      case 'comment.added': {
        const { comment } = event.data;
        if (comment.issue_key !== shown.key) return;
        void liveRead((held) => isNewItem(held.comments, comment.id), event.data.actor_id, 'added a comment');
        return;
      }
      case 'worklog.added': {
        const { worklog } = event.data;
        if (worklog.issue_key !== shown.key) return;
        void liveRead((held) => isNewItem(held.worklogs, worklog.id), event.data.actor_id, `logged ${minutesInWords(worklog.minutes)}`);
        return;
      }
    }
  };
  // The stream hands its events to the latest of these; those that came while the page was read, now.
  const liveView = useRef({ onEvent: onLiveEvent, onStart: () => void liveRead(() => true) });
  liveView.current = { onEvent: onLiveEvent, onStart: () => void liveRead(() => true) };
  useEffect(() => {
    const link = live.current;
    link.view = { onEvent: (event) => liveView.current.onEvent(event), onStart: () => liveView.current.onStart() };
    const told = link.early;
    link.early = [];
    told.forEach((event) => liveView.current.onEvent(event));
    return () => {
      link.view = null;
    };
  }, [live]);

  const addComment = async (body: string) => {
    ok(await client.POST('/api/v1/issues/{key}/comments', { params: { path: { key } }, body: { body } }));
    await refresh();
    return 'Comment added.';
  };
  const logTime = async (minutes: number, description: string) => {
    ok(await client.POST('/api/v1/issues/{key}/worklogs', { params: { path: { key } }, body: { minutes, description } }));
    await refresh();
    return `Logged ${minutesInWords(minutes)}.`;
  };
  const addSubtask = async (title: string) => {
    const created = ok(await client.POST('/api/v1/issues', { body: { queue_id: issue.queue_id, title, parent_id: issue.id } }));
    await refresh();
    return `Subtask ${created.key} added.`;
  };
  const query = (afterId: number) => ({ params: { path: { key }, query: { after_id: afterId, limit: PAGE_SIZE } } });

  return (
    <div className="issue-page">
      <PageHeading>
        <span className="issue-key">{issue.key}</span> {issue.title}
      </PageHeading>
      <p className="issue-meta">
        <span>
          Queue <Link to={pathTo('board', { key: queueKey })}>{data.queue?.name ?? queueKey}</Link>
        </span>
        <span>
          Created by {userName(issue.created_by)}, <When at={issue.created_at} />
        </span>
        <span>
          Last changed <When at={issue.updated_at} />
        </span>
        {issue.parent_id !== null && (
          <span>
            Subtask of <ParentRef parentId={issue.parent_id} parentKey={parentKeys.current.get(issue.parent_id)} />
          </span>
        )}
      </p>
      <Status className="issue-live">{liveNote}</Status>
      {!canWrite && (
        <p className="issue-readonly">
          {data.queue
            ? `You can read this issue but not change it: your role on the queue ${data.queue.name} is read-only. Ask an admin of the queue for read-write access.`
            : `Your role on the queue ${queueKey} could not be read, so the issue is shown without the controls to change it. Reload the page to try again.`}
        </p>
      )}

      <section aria-labelledby="details-heading" className="card issue-details">
        <h2 id="details-heading">Details</h2>
        {canWrite ? (
          <IssueDetailsForm
            statusId={statusPending ?? issue.status_id}
            statuses={statuses}
            onStatus={changeStatus}
            statusProblem={statusProblem}
            statusDone={statusDone}
            draft={draft}
            onChange={(field, value) => setDraft((now) => ({ ...now, [field]: value }))}
            problems={problems}
            users={data.users ?? []}
            assigneeName={userName}
            changed={changed}
            onSave={save}
            formProblem={formProblem}
            saved={saved}
            conflict={conflict}
            reloading={reloading}
            onReload={reload}
            merged={merged}
            mergedRef={mergedRef}
            fieldRefs={fieldRefs}
          />
        ) : (
          <IssueFacts issue={issue} userName={userName} parentKey={issue.parent_id === null ? undefined : parentKeys.current.get(issue.parent_id)} />
        )}
      </section>

      <IssueListSection
        id="comments"
        title="Comments"
        items={issue.comments}
        total={issue.comments_total}
        one="comment"
        many="comments"
        empty="No comments yet."
        loadPage={async (afterId) => ok(await client.GET('/api/v1/issues/{key}/comments', query(afterId)))}
        renderItem={(comment) => (
          <li key={comment.id} className="issue-item">
            <p className="issue-item-meta">
              <strong>{userName(comment.author_id)}</strong> <When at={comment.created_at} />
            </p>
            <p className="issue-text">{comment.body}</p>
          </li>
        )}
      >
        {canWrite && <CommentForm add={addComment} />}
      </IssueListSection>

      <IssueListSection
        id="worklogs"
        title="Worklogs"
        items={issue.worklogs}
        total={issue.worklogs_total}
        one="worklog"
        many="worklogs"
        empty="No time logged yet."
        intro={
          <p className="issue-time">
            {minutesInWords(issue.spent_minutes)} logged in all{issue.estimate_minutes > 0 ? ` of ${minutesInWords(issue.estimate_minutes)} estimated` : ''}.
          </p>
        }
        loadPage={async (afterId) => ok(await client.GET('/api/v1/issues/{key}/worklogs', query(afterId)))}
        renderItem={(worklog) => (
          <li key={worklog.id} className="issue-item">
            <p className="issue-item-meta">
              <strong>{userName(worklog.author_id)}</strong> logged {minutesInWords(worklog.minutes)}, <When at={worklog.created_at} />
            </p>
            {worklog.description && <p className="issue-text">{worklog.description}</p>}
          </li>
        )}
      >
        {canWrite && <WorklogForm add={logTime} />}
      </IssueListSection>

      <IssueListSection
        id="subtasks"
        title="Subtasks"
        items={issue.subtasks}
        total={issue.subtasks_total}
        one="subtask"
        many="subtasks"
        empty="No subtasks."
        loadPage={async (afterId) => ok(await client.GET('/api/v1/issues/{key}/subtasks', query(afterId)))}
        renderItem={(subtask) => (
          <li key={subtask.id} className="issue-item issue-ref">
            <IssueLink issueKey={subtask.key} /> <span className="issue-ref-title">{subtask.title}</span> <span className="issue-pill">{subtask.status.name}</span>
          </li>
        )}
      >
        {canWrite && <SubtaskForm add={addSubtask} />}
      </IssueListSection>

      <IssueListSection
        id="links"
        title="Links"
        items={issue.links}
        total={issue.links_total}
        one="link"
        many="links"
        empty="No linked issues."
        intro={<p className="help">Two issues are linked when one names the other’s key in its description or in a comment.</p>}
        loadPage={async (afterId) => ok(await client.GET('/api/v1/issues/{key}/links', query(afterId)))}
        renderItem={(link, position) => (
          <li key={`${link.id}-${link.direction}-${position}`} className="issue-item issue-ref">
            <span className="issue-link-kind">{link.direction === 'outward' ? 'Mentions' : 'Mentioned by'}</span> <IssueLink issueKey={link.key} />{' '}
            <span className="issue-ref-title">{link.title}</span> <span className="issue-pill">{link.status.name}</span>
          </li>
        )}
      />

      <IssueListSection
        id="history"
        title="History"
        items={issue.history}
        total={issue.history_total}
        one="change"
        many="changes"
        empty="No changes yet."
        loadPage={async (afterId) => ok(await client.GET('/api/v1/issues/{key}/history', query(afterId)))}
        renderItem={(entry, position) => (
          <li key={position} className="issue-item">
            <strong>{userName(entry.actor_id)}</strong> {describeChange(entry, names)}, <When at={entry.at} />
          </li>
        )}
      />
    </div>
  );
}

/** The parent issue: a link by its key when the page knows the key; else its id in words (the API reads issues by key only). */
const ParentRef = ({ parentId, parentKey }: { parentId: number; parentKey: string | undefined }) =>
  parentKey ? <IssueLink issueKey={parentKey} /> : <>issue #{parentId}</>;

/** The issue's fields for a person who may only read them. */
function IssueFacts({ issue, userName, parentKey }: { issue: IssueDetails; userName: (id: number) => string; parentKey: string | undefined }) {
  return (
    <>
      <dl className="issue-facts">
        <div>
          <dt>Status</dt>
          <dd>{issue.status.name}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{issue.type}</dd>
        </div>
        <div>
          <dt>Parent issue</dt>
          <dd>{issue.parent_id === null ? 'None' : <ParentRef parentId={issue.parent_id} parentKey={parentKey} />}</dd>
        </div>
        <div>
          <dt>Assignee</dt>
          <dd>{issue.assignee_id === null ? 'Nobody' : userName(issue.assignee_id)}</dd>
        </div>
        <div>
          <dt>Priority</dt>
          <dd>{capitalised(issue.priority)}</dd>
        </div>
        <div>
          <dt>Labels</dt>
          <dd>{issue.labels.length ? issue.labels.join(', ') : 'None'}</dd>
        </div>
        <div>
          <dt>Due date</dt>
          <dd>{issue.due_date ? dayOf(issue.due_date) : 'None'}</dd>
        </div>
        <div>
          <dt>Estimate</dt>
          <dd>{minutesInWords(issue.estimate_minutes)}</dd>
        </div>
      </dl>
      <h3 className="issue-facts-heading">Description</h3>
      {issue.description ? <p className="issue-text">{issue.description}</p> : <p className="help">No description.</p>}
    </>
  );
}
