import { useId, useRef, useState, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { PAGES } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok, ProblemError } from '../http';
import { AdminSetupLink, type Handover } from '../components/AdminSetupLink';
import { ADMIN_LIMITS, checkInvite, inviteProblems, type InviteField } from '../rules/admin-forms';
import { setupLinkExpiry, userChangeDone, userChangeProblem, type UserChange } from '../rules/admin-users';
import { Alert, Choices, Empty, Field, formatDay, Link, Loading, messageOf, PageHeading, Status, SubmitButton, useCheckedSubmit, useLoad, useTitle, type Choice } from '../ui';

type User = Schemas['User'];
type WorkspaceRole = User['role'];

const ROLE_CHOICES: ReadonlyArray<Choice<WorkspaceRole>> = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
];

/** A refusal as a ProblemError's problem, or words for anything else (a lost connection). */
const problemWords = (error: unknown, change: UserChange, user: User, self: boolean) =>
  error instanceof ProblemError ? userChangeProblem(error.problem, change, user, self) : messageOf(error);

/**
 * /admin/users: a workspace admin invites colleagues (and hands them their setup link),
 * changes roles, deactivates and reactivates people, and makes a new setup link for a
 * lost invitation or a forgotten password. Whether the page is theirs is the API's word:
 * GET /me's role now, not the role the session started with, and every refusal is shown.
 */
export function AdminUsersPage() {
  useTitle('Users');
  const { client } = useAuth();
  const loaded = useLoad(async () => {
    const [me, users] = await Promise.all([client.GET('/api/v1/me'), client.GET('/api/v1/users')]);
    return { me: ok(me), users: ok(users) };
  }, [client]);

  return (
    <>
      <PageHeading>Users</PageHeading>
      <Loading
        loaded={loaded}
        what="the people of the workspace"
        render={({ me, users }) =>
          me.role === 'admin' ? (
            <UsersAdmin meId={me.id} workspace={me.workspace.name} initialUsers={users} />
          ) : (
            <div className="card admin-notice">
              <p>
                This page is for the admins of {me.workspace.name}: they invite people, hand out setup links and change roles. You are a member, so ask an admin when
                something about an account needs to change.
              </p>
              <p>
                <Link to={PAGES.tokens}>Your personal tokens</Link> are yours to manage.
              </p>
            </div>
          )
        }
      />
    </>
  );
}

interface RowProblem {
  userId: number;
  change: UserChange;
  words: string;
}

function UsersAdmin({ meId, workspace, initialUsers }: { meId: number; workspace: string; initialUsers: User[] }) {
  const { client } = useAuth();
  const [users, setUsers] = useState(initialUsers);
  const [handover, setHandover] = useState<Handover | null>(null);
  const [status, setStatus] = useState('');
  const [rowProblem, setRowProblem] = useState<RowProblem | null>(null);
  const [pendingRoles, setPendingRoles] = useState<Record<number, WorkspaceRole>>({});
  const [busyUser, setBusyUser] = useState<number | null>(null);
  const [emailFor, setEmailFor] = useState<number | null>(null);

  const replaceUser = (changed: User) => setUsers((list) => list.map((user) => (user.id === changed.id ? changed : user)));

  /** One change of one user at a time; its refusal goes next to the control that asked for it. */
  const act = async (user: User, change: UserChange, run: () => Promise<void>) => {
    setBusyUser(user.id);
    setRowProblem(null);
    setStatus('');
    try {
      await run();
    } catch (error) {
      setRowProblem({ userId: user.id, change, words: problemWords(error, change, user, user.id === meId) });
    } finally {
      setBusyUser(null);
    }
  };

  const saveRole = (user: User) =>
    act(user, 'role', async () => {
      const role = pendingRoles[user.id] ?? user.role;
      try {
        const changed = ok(await client.PATCH('/api/v1/users/{user_id}', { params: { path: { user_id: user.id } }, body: { role } }));
        replaceUser(changed);
        setStatus(userChangeDone('role', changed, user.id === meId));
      } finally {
        // Refused or done, the select shows the role in force again.
        setPendingRoles(({ [user.id]: _, ...rest }) => rest);
      }
    });

  const setActive = (user: User, active: boolean) =>
    act(user, active ? 'activate' : 'deactivate', async () => {
      const changed = ok(await client.PATCH('/api/v1/users/{user_id}', { params: { path: { user_id: user.id } }, body: { active } }));
      replaceUser(changed);
      setStatus(userChangeDone(active ? 'activate' : 'deactivate', changed, user.id === meId));
    });

  const newLink = (user: User, email?: string) =>
    act(user, 'setup-link', async () => {
      const made = ok(
        await client.POST('/api/v1/users/{user_id}/setup-link', { params: { path: { user_id: user.id } }, body: email === undefined ? undefined : { email } }),
      );
      if (email !== undefined) replaceUser({ ...user, email });
      setEmailFor(null);
      setHandover({ name: user.name, email: email ?? user.email, url: made.setup_url, expiresAt: setupLinkExpiry(new Date()), kind: 'new-link' });
    });

  const invited = (user: Schemas['InvitedUser']) => {
    const { setup_url, ...listed } = user;
    setUsers((list) => [...list, listed]);
    setRowProblem(null);
    setStatus('');
    setHandover({ name: user.name, email: user.email, url: setup_url, expiresAt: setupLinkExpiry(new Date()), kind: 'invited' });
  };

  return (
    <>
      <p className="lead">
        Invite colleagues to {workspace}, hand each their setup link, and choose who is an admin.
      </p>

      <InviteForm onInvited={invited} />
      {handover && <AdminSetupLink handover={handover} />}

      {/* Its line is kept while empty, so what it says never pushes the table down under the pointer. */}
      <Status className="admin-status">{status}</Status>

      <section aria-labelledby="people-heading">
        <h2 id="people-heading">People in {workspace}</h2>
        {users.length === 0 ? (
          <Empty>No one is in the workspace yet.</Empty>
        ) : (
          <table className="data admin-users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Active</th>
                <th scope="col">Activity</th>
                <th scope="col">
                  <span className="visually-hidden">Setup link</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <UserRow
                  key={user.id}
                  user={user}
                  self={user.id === meId}
                  busy={busyUser === user.id}
                  problem={rowProblem?.userId === user.id ? rowProblem : null}
                  pendingRole={pendingRoles[user.id]}
                  askingEmail={emailFor === user.id}
                  onPendingRole={(role) =>
                    setPendingRoles(({ [user.id]: _, ...rest }) => (role === user.role ? rest : { ...rest, [user.id]: role }))
                  }
                  onSaveRole={() => saveRole(user)}
                  onSetActive={(active) => void setActive(user, active)}
                  onNewLink={() => {
                    if (user.email === null) {
                      setRowProblem(null);
                      setEmailFor(user.id);
                    } else void newLink(user);
                  }}
                  onNewLinkWithEmail={(email) => void newLink(user, email)}
                  onCancelEmail={() => setEmailFor(null)}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: (user: Schemas['InvitedUser']) => void }) {
  const { client } = useAuth();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<InviteField>();

  const invite = (event: FormEvent) =>
    submit(event, {
      check: () => checkInvite({ name, email }),
      send: async () => {
        const user = ok(await client.POST('/api/v1/users', { body: { name: name.trim(), email: email.trim(), role } }));
        setName('');
        setEmail('');
        setRole('member');
        onInvited(user);
      },
      place: inviteProblems,
    });

  return (
    <section aria-labelledby="invite-heading" className="card">
      <h2 id="invite-heading">Invite a colleague</h2>
      <form ref={formRef} className="inline-form" onSubmit={invite} noValidate>
        <div className="grow">
          <Field label="Name" problem={problems.name}>
            {(props) => <input {...props} type="text" autoComplete="off" maxLength={ADMIN_LIMITS.nameMax} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        <div className="grow">
          <Field label="Email" problem={problems.email}>
            {(props) => (
              <input {...props} type="email" autoComplete="off" spellCheck={false} maxLength={ADMIN_LIMITS.emailMax} value={email} onChange={(e) => setEmail(e.target.value)} />
            )}
          </Field>
        </div>
        <div>
          <Field label="Role" problem={problems.role}>
            {(props) => <Choices {...props} choices={ROLE_CHOICES} value={role} onChoose={setRole} />}
          </Field>
        </div>
        <SubmitButton busy={busy}>Invite</SubmitButton>
      </form>
      <p className="help admin-form-help">Their email is the name they sign in with. An admin manages people and is admin of every queue.</p>
      <Alert>{general}</Alert>
    </section>
  );
}

function UserRow({
  user,
  self,
  busy,
  problem,
  pendingRole,
  askingEmail,
  onPendingRole,
  onSaveRole,
  onSetActive,
  onNewLink,
  onNewLinkWithEmail,
  onCancelEmail,
}: {
  user: User;
  self: boolean;
  busy: boolean;
  problem: RowProblem | null;
  pendingRole: WorkspaceRole | undefined;
  askingEmail: boolean;
  onPendingRole: (role: WorkspaceRole) => void;
  onSaveRole: () => Promise<void>;
  onSetActive: (active: boolean) => void;
  onNewLink: () => void;
  onNewLinkWithEmail: (email: string) => void;
  onCancelEmail: () => void;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const problemAt = (change: UserChange | UserChange[]) => (problem && ([] as UserChange[]).concat(change).includes(problem.change) ? problem : null);
  const roleProblem = problemAt('role');
  const activeProblem = problemAt(['activate', 'deactivate']);
  const linkProblem = problemAt('setup-link');
  const shownRole = pendingRole ?? user.role;
  const described = (shown: RowProblem | null) => (shown ? { 'aria-describedby': problemId, 'aria-invalid': true as const } : {});

  const roleRef = useRef<HTMLSelectElement>(null);
  // Saved or refused, the Save button goes: the focus goes back to the role, whose description then holds any refusal.
  const saveRole = async () => {
    await onSaveRole();
    roleRef.current?.focus();
  };

  const deactivate = () => {
    if (self && !window.confirm('Deactivate yourself? You are signed out at once, and only another admin can let you back in.')) return;
    onSetActive(false);
  };

  return (
    <tr aria-busy={busy || undefined}>
      <th scope="row" data-label="Name">
        <span>
          {user.name}
          {self && <span className="admin-tag">you</span>}
        </span>
      </th>
      <td data-label="Email" className="admin-email">
        {user.email ? <Email address={user.email} /> : <span className="hint">No email yet</span>}
      </td>
      <td data-label="Role">
        <div>
          <div className="admin-controls">
            <Choices ref={roleRef} aria-label={`Role for ${user.name}`} choices={ROLE_CHOICES} value={shownRole} onChoose={onPendingRole} {...described(roleProblem)} />
            {pendingRole && pendingRole !== user.role && (
              <button type="button" aria-label={`Save role for ${user.name}`} disabled={busy} onClick={() => void saveRole()}>
                Save
              </button>
            )}
          </div>
          {roleProblem && <RowAlert id={problemId}>{roleProblem.words}</RowAlert>}
        </div>
      </td>
      <td data-label="Active">
        <div>
          <div className="admin-controls">
            <span>{user.active ? 'Active' : 'Deactivated'}</span>
            {user.active ? (
              <button type="button" className="danger" aria-label={`Deactivate ${user.name}`} disabled={busy} onClick={deactivate} {...described(activeProblem)}>
                Deactivate
              </button>
            ) : (
              <button type="button" className="secondary" aria-label={`Activate ${user.name}`} disabled={busy} onClick={() => onSetActive(true)} {...described(activeProblem)}>
                Activate
              </button>
            )}
          </div>
          {activeProblem && <RowAlert id={problemId}>{activeProblem.words}</RowAlert>}
        </div>
      </td>
      <td data-label="Activity">
        <span>
          Added {formatDay(user.created_at)}
          {user.updated_at !== user.created_at && (
            <>
              <br />
              Changed {formatDay(user.updated_at)}
            </>
          )}
        </span>
      </td>
      <td className="actions">
        {askingEmail ? (
          <EmailForLink user={user} busy={busy} problem={linkProblem?.words} onSubmit={onNewLinkWithEmail} onCancel={onCancelEmail} />
        ) : (
          <>
            <button type="button" className="secondary" aria-label={`New setup link for ${user.name}`} disabled={busy} onClick={onNewLink} {...described(linkProblem)}>
              New setup link
            </button>
            {linkProblem && <RowAlert id={problemId}>{linkProblem.words}</RowAlert>}
          </>
        )}
      </td>
    </tr>
  );
}

/** An email that may break after its @ when the column is narrow, rather than anywhere. */
function Email({ address }: { address: string }) {
  const at = address.lastIndexOf('@');
  if (at < 0) return <>{address}</>;
  return (
    <>
      {address.slice(0, at + 1)}
      <wbr />
      {address.slice(at + 1)}
    </>
  );
}

const RowAlert = ({ id, children }: { id: string; children: string }) => (
  <p id={id} className="field-problem" role="alert">
    {children}
  </p>
);

/** A user made without an email (by the operator's command line) is given one with their link. */
function EmailForLink({
  user,
  busy,
  problem,
  onSubmit,
  onCancel,
}: {
  user: User;
  busy: boolean;
  problem?: string;
  onSubmit: (email: string) => void;
  onCancel: () => void;
}) {
  const [email, setEmail] = useState('');
  const [checked, setChecked] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = checkInvite({ name: user.name, email }).email ?? '';
    setChecked(found);
    if (!found) onSubmit(email.trim());
  };
  return (
    <form className="admin-email-form" onSubmit={submit} noValidate>
      <Field label={`Email for ${user.name}`} problem={checked || problem} hint="They have none yet: the link is made for this one.">
        {(props) => <input {...props} type="email" autoComplete="off" spellCheck={false} autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <div className="admin-controls">
        <SubmitButton busy={busy}>Make link</SubmitButton>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
