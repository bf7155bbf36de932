import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { PAGES, pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok, ProblemError } from '../http';
import { ADMIN_LIMITS, checkQueueSettings } from '../rules/admin-forms';
import { placeProblem } from '../rules/problems';
import {
  describeChange,
  hiddenCount,
  historyView,
  memberRows,
  namesOf,
  nextHistoryPage,
  QUEUE_ROLES,
  ROLE_CHOICES,
  ROLE_MEANING,
  ROLE_WORDS,
  userChoices,
  withEarlierPage,
  type HistoryView,
  type MemberRow,
  type QueueRole,
} from '../rules/queue-permissions';
import { Alert, Choices, Empty, Field, formatDateTime, Link, Loading, messageOf, PageHeading, Status, SubmitButton, useCheckedSubmit, useLoad, useTitle } from '../ui';

type Queue = Schemas['Queue'];
type Change = Schemas['PermissionChange'];

type PageData =
  | { kind: 'not-found' }
  | { kind: 'forbidden'; queue: Queue }
  | { kind: 'admin'; queue: Queue; permissions: Schemas['QueuePermissions']; users: Schemas['User'][] };

/**
 * /queues/{KEY}/permissions: for the queue's admins (explicit, or workspace admins who
 * inherit admin on every queue). The queue's settings; granting, changing and revoking
 * explicit roles; who has which role and where it comes from; and the history of changes.
 * The queue is found by its key among the caller's queues; whether they may manage it is
 * the permissions read's answer (403: not an admin of it; 404 or unlisted: no such queue
 * for them).
 */
export function PermissionsPage({ queueKey }: { queueKey: string }) {
  const key = queueKey.toUpperCase();
  useTitle(`Permissions · ${key}`);
  const { client } = useAuth();
  const loaded = useLoad(async (): Promise<PageData> => {
    const queue = ok(await client.GET('/api/v1/queues')).find((q) => q.key.toUpperCase() === key);
    if (!queue) return { kind: 'not-found' };
    const path = { queue_id: queue.id };
    const [permissions, users] = await Promise.all([client.GET('/api/v1/queues/{queue_id}/permissions', { params: { path } }), client.GET('/api/v1/users')]);
    try {
      return { kind: 'admin', queue, permissions: ok(permissions), users: ok(users) };
    } catch (error) {
      if (error instanceof ProblemError && error.problem.status === 403) return { kind: 'forbidden', queue };
      if (error instanceof ProblemError && error.problem.status === 404) return { kind: 'not-found' };
      throw error;
    }
  }, [client, key]);

  return (
    <>
      <PageHeading>Permissions · {key}</PageHeading>
      <Loading
        loaded={loaded}
        what="the queue’s permissions"
        render={(data) => {
          if (data.kind === 'not-found') {
            return (
              <div className="card admin-notice">
                <p>There is no queue {key}, or it is hidden from you: a queue shows only to the people who have a role on it.</p>
                <p>
                  <Link to={PAGES.adminQueues}>The queues you can see</Link>
                </p>
              </div>
            );
          }
          if (data.kind === 'forbidden') {
            return (
              <div className="card admin-notice">
                <p>
                  Who may use {data.queue.key} · {data.queue.name} is for its admins to decide, and for the workspace’s admins. Your role on it is{' '}
                  {ROLE_WORDS[data.queue.role]}.
                </p>
                <p>
                  <Link to={pathTo('board', { key: data.queue.key })}>Open the board of {data.queue.key}</Link>
                </p>
              </div>
            );
          }
          return <QueueAdmin data={data} reload={loaded.reload} />;
        }}
      />
    </>
  );
}

function QueueAdmin({ data, reload }: { data: Extract<PageData, { kind: 'admin' }>; reload: () => Promise<void> }) {
  const { queue, permissions, users } = data;
  const [status, setStatus] = useState('');
  const nameOf = namesOf(users);

  return (
    <>
      <p className="lead">
        {queue.name}: who may use the queue, and how. <Link to={pathTo('board', { key: queue.key })}>Open the board</Link>
      </p>
      <GrantForm queue={queue} users={users} onDone={setStatus} reload={reload} />
      {/* Its line is kept while empty, so what it says never pushes the table down under the pointer. */}
      <Status className="admin-status">{status}</Status>
      <Members queue={queue} members={permissions.members} onDone={setStatus} reload={reload} />
      <QueueSettings queue={queue} reload={reload} />
      <History queue={queue} permissions={permissions} nameOf={nameOf} />
    </>
  );
}

function QueueSettings({ queue, reload }: { queue: Queue; reload: () => Promise<void> }) {
  const { client } = useAuth();
  const [saved, setSaved] = useState('');
  /** The settings as the form was filled with them: a reload that brings others' changes fills it afresh. */
  const [start, setStart] = useState({ name: queue.name, description: queue.description });
  const [name, setName] = useState(queue.name);
  const [description, setDescription] = useState(queue.description);
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<'name' | 'description'>();

  if (start.name !== queue.name || start.description !== queue.description) {
    setStart({ name: queue.name, description: queue.description });
    setName(queue.name);
    setDescription(queue.description);
  }

  const save = (event: FormEvent) => {
    // Only the fields changed in this form are sent, so a change someone else made meanwhile to the other one stays.
    const changes: Schemas['QueueSettings'] = {};
    if (name.trim() !== start.name) changes.name = name.trim();
    if (description !== start.description) changes.description = description;
    return submit(event, {
      check: () => {
        setSaved('');
        return checkQueueSettings({ name, description });
      },
      ready: () => {
        if (Object.keys(changes).length > 0) return true;
        setSaved('Nothing to save: the settings are as shown.');
        return false;
      },
      send: async () => {
        const result = ok(await client.PATCH('/api/v1/queues/{queue_id}', { params: { path: { queue_id: queue.id } }, body: changes }));
        setSaved(`The settings of ${result.key} are saved.`);
        await reload();
      },
      place: (problem) => placeProblem(problem, ['name', 'description'] as const),
    });
  };

  return (
    <section aria-labelledby="settings-heading" className="card">
      <h2 id="settings-heading">Settings</h2>
      <form ref={formRef} className="admin-form" onSubmit={save} noValidate>
        <Field label="Name" problem={problems.name}>
          {(props) => <input {...props} type="text" autoComplete="off" maxLength={ADMIN_LIMITS.nameMax} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Description" problem={problems.description}>
          {(props) => <textarea {...props} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <p className="help admin-form-help">The key, {queue.key}, stays: every issue key of the queue starts with it.</p>
        <Alert>{general}</Alert>
        <SubmitButton busy={busy}>Save settings</SubmitButton>
      </form>
      <Status>{saved}</Status>
    </section>
  );
}

function GrantForm({ queue, users, onDone, reload }: { queue: Queue; users: Schemas['User'][]; onDone: (words: string) => void; reload: () => Promise<void> }) {
  const { client } = useAuth();
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<QueueRole>('read-write');
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<'user'>();
  const choices = [{ value: '', label: 'Choose a person…' }, ...userChoices(users).map((choice) => ({ value: String(choice.value), label: choice.label }))];

  const grant = (event: FormEvent) =>
    submit(event, {
      check: () => (userId ? {} : { user: 'Choose the person to grant a role to.' }),
      send: async () => {
        const granted = ok(
          await client.PUT('/api/v1/queues/{queue_id}/permissions/{user_id}', { params: { path: { queue_id: queue.id, user_id: Number(userId) } }, body: { role } }),
        );
        setUserId('');
        onDone(
          granted.role_source === 'inherited'
            ? `${granted.name} is granted ${ROLE_WORDS[role]} on ${queue.key}, and stays admin of it as a workspace admin.`
            : `${granted.name} now has ${ROLE_WORDS[role]} on ${queue.key}.`,
        );
        await reload();
      },
      place: (problem) =>
        problem.code === 'validation_failed' && problem.errors?.some((e) => e.path === 'user_id')
          ? { fields: { user: 'This person is not in the workspace any more. Reload the page.' }, general: '' }
          : { fields: {}, general: problem.detail },
    });

  return (
    <section aria-labelledby="grant-heading" className="card">
      <h2 id="grant-heading">Grant a role</h2>
      <form ref={formRef} className="inline-form" onSubmit={grant} noValidate>
        <div className="grow">
          <Field label="User" problem={problems.user}>
            {(props) => <Choices {...props} choices={choices} value={userId} onChoose={setUserId} />}
          </Field>
        </div>
        <div>
          <Field label="Role">{(props) => <Choices {...props} choices={ROLE_CHOICES} value={role} onChoose={setRole} />}</Field>
        </div>
        <SubmitButton busy={busy}>Grant</SubmitButton>
      </form>
      <ul className="help admin-roles">
        {QUEUE_ROLES.map((value) => (
          <li key={value}>
            <strong>{ROLE_WORDS[value]}</strong> {ROLE_MEANING[value]}.
          </li>
        ))}
      </ul>
      <Alert>{general}</Alert>
    </section>
  );
}

interface RowProblem {
  userId: number;
  words: string;
}

function Members({
  queue,
  members,
  onDone,
  reload,
}: {
  queue: Queue;
  members: Schemas['QueueMember'][];
  onDone: (words: string) => void;
  reload: () => Promise<void>;
}) {
  const { client } = useAuth();
  const rows = memberRows(members);
  const [pending, setPending] = useState<Record<number, QueueRole>>({});
  const [busyUser, setBusyUser] = useState<number | null>(null);
  const [problem, setProblem] = useState<RowProblem | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const act = async (row: MemberRow, run: () => Promise<string>) => {
    setBusyUser(row.userId);
    setProblem(null);
    onDone('');
    try {
      const words = await run();
      // Said once the table shows it.
      await reload();
      onDone(words);
    } catch (error) {
      setProblem({ userId: row.userId, words: messageOf(error) });
    } finally {
      setBusyUser(null);
      setPending(({ [row.userId]: _, ...rest }) => rest);
    }
  };

  const path = (row: MemberRow) => ({ queue_id: queue.id, user_id: row.userId });
  const change = (row: MemberRow) =>
    act(row, async () => {
      const role = pending[row.userId] ?? row.explicit!;
      ok(await client.PUT('/api/v1/queues/{queue_id}/permissions/{user_id}', { params: { path: path(row) }, body: { role } }));
      return `${row.name} now has ${ROLE_WORDS[role]} on ${queue.key}.`;
    });
  const revoke = (row: MemberRow) =>
    act(row, async () => {
      const after = ok(await client.DELETE('/api/v1/queues/{queue_id}/permissions/{user_id}', { params: { path: path(row) } }));
      // The row (or its Revoke button) goes: the focus goes to the table's heading rather than to nowhere.
      headingRef.current?.focus();
      return after.role
        ? `${row.name}’s role granted on ${queue.key} is revoked; as a workspace admin they stay admin of it.`
        : `${row.name}’s role on ${queue.key} is revoked: the queue is hidden from them now.`;
    });

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading" className="admin-focus-target" ref={headingRef} tabIndex={-1}>
        Who has access
      </h2>
      {rows.length === 0 ? (
        <Empty>No one has a role on {queue.key}.</Empty>
      ) : (
        <table className="data admin-members">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role on {queue.key}</th>
              <th scope="col">Where it comes from</th>
              <th scope="col">
                <span className="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <MemberLine
                key={row.userId}
                row={row}
                busy={busyUser === row.userId}
                pending={pending[row.userId]}
                problem={problem?.userId === row.userId ? problem.words : ''}
                onPending={(role) => setPending(({ [row.userId]: _, ...rest }) => (role === row.explicit ? rest : { ...rest, [row.userId]: role }))}
                onChange={() => change(row)}
                onRevoke={() => void revoke(row)}
              />
            ))}
          </tbody>
        </table>
      )}
      <p className="help admin-after-table">
        Workspace admins are admin of every queue. That comes from their role in the workspace (on the Users page), so it is marked inherited and cannot be revoked here.
      </p>
    </section>
  );
}

function MemberLine({
  row,
  busy,
  pending,
  problem,
  onPending,
  onChange,
  onRevoke,
}: {
  row: MemberRow;
  busy: boolean;
  pending: QueueRole | undefined;
  problem: string;
  onPending: (role: QueueRole) => void;
  onChange: () => Promise<void>;
  onRevoke: () => void;
}) {
  const problemId = `${useId()}-problem`;
  const roleRef = useRef<HTMLSelectElement>(null);
  // Saved or refused, the Save button goes: the focus goes back to the role.
  const save = async () => {
    await onChange();
    roleRef.current?.focus();
  };
  const described = problem ? { 'aria-describedby': problemId, 'aria-invalid': true as const } : {};
  return (
    <tr aria-busy={busy || undefined}>
      <th scope="row" data-label="Person">
        <span>
          {row.name}
          {!row.active && <span className="admin-tag">deactivated</span>}
        </span>
      </th>
      <td data-label="Role">
        <div>
          {row.inherited ? (
            <span>
              {ROLE_WORDS[row.effective]} <span className="admin-tag">inherited</span>
            </span>
          ) : (
            <div className="admin-controls">
              <Choices ref={roleRef} aria-label={`Role for ${row.name}`} choices={ROLE_CHOICES} value={pending ?? row.explicit ?? row.effective} onChoose={onPending} {...described} />
              {pending && pending !== row.explicit && (
                <button type="button" aria-label={`Save role for ${row.name}`} disabled={busy} onClick={() => void save()}>
                  Save
                </button>
              )}
            </div>
          )}
          {problem && (
            <p id={problemId} className="field-problem" role="alert">
              {problem}
            </p>
          )}
        </div>
      </td>
      <td data-label="Comes from">{row.source}</td>
      <td className="actions">
        {row.explicit !== null && (
          <button type="button" className="danger" aria-label={`Revoke role of ${row.name}`} disabled={busy} onClick={onRevoke}>
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

function History({ queue, permissions, nameOf }: { queue: Queue; permissions: Schemas['QueuePermissions']; nameOf: (userId: number) => string }) {
  const { client } = useAuth();
  const [view, setView] = useState<HistoryView<Change>>(() => historyView(permissions.history, permissions.history_total));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState('');

  // A new read (after a change) starts the history afresh: the newest changes and the gap before them.
  useEffect(() => {
    setView(historyView(permissions.history, permissions.history_total));
    setProblem('');
  }, [permissions]);

  const headingRef = useRef<HTMLHeadingElement>(null);
  const showEarlier = async () => {
    const query = nextHistoryPage(view);
    if (!query) return;
    setBusy(true);
    setProblem('');
    try {
      const page = ok(await client.GET('/api/v1/queues/{queue_id}/permissions/history', { params: { path: { queue_id: queue.id }, query } }));
      const next = withEarlierPage(view, page);
      setView(next);
      // The button goes with the gap; the focus goes to the history rather than to nowhere.
      if (hiddenCount(next) === 0) headingRef.current?.focus();
    } catch (error) {
      setProblem(`The earlier changes could not be loaded: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const hidden = hiddenCount(view);
  const line = (change: Change, index: number) => {
    const words = describeChange(change, nameOf);
    return (
      <tr key={`${change.at}-${index}`}>
        <td data-label="When">
          <time dateTime={change.at}>{formatDateTime(change.at)}</time>
        </td>
        <td data-label="Person">{words.person}</td>
        <td data-label="Change">{words.change}</td>
        <td data-label="By">{words.by}</td>
      </tr>
    );
  };

  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading" className="admin-focus-target" ref={headingRef} tabIndex={-1}>
        History of changes
      </h2>
      {view.total === 0 ? (
        <Empty>No role has been granted, changed or revoked on {queue.key} yet.</Empty>
      ) : (
        <>
          <p className="help admin-before-table">Oldest first; {view.total === 1 ? 'one change' : `${view.total.toLocaleString('en')} changes`} in all.</p>
          <table className="data admin-history">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Person</th>
                <th scope="col">Change</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {view.earlier.map((change, index) => line(change, index))}
              {hidden > 0 && (
                <tr>
                  <td colSpan={4} className="admin-gap">
                    <span>{hidden === 1 ? 'One earlier change is not shown.' : `${hidden.toLocaleString('en')} earlier changes are not shown.`}</span>{' '}
                    <button type="button" className="secondary" disabled={busy} onClick={() => void showEarlier()}>
                      Show earlier changes
                    </button>
                  </td>
                </tr>
              )}
              {view.newest.map((change, index) => line(change, view.earlier.length + hidden + index))}
            </tbody>
          </table>
          <Alert>{problem}</Alert>
        </>
      )}
    </section>
  );
}
