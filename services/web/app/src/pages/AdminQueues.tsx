import { useState, type FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok } from '../http';
import { ADMIN_LIMITS, checkNewQueue, newQueueProblems, type QueueField } from '../rules/admin-forms';
import { ROLE_WORDS } from '../rules/queue-permissions';
import { Alert, Empty, Field, Link, Loading, PageHeading, Status, SubmitButton, useCheckedSubmit, useLoad, useTitle } from '../ui';

type Queue = Schemas['Queue'];

const byKey = (a: Queue, b: Queue) => a.key.localeCompare(b.key, 'en');

/**
 * /admin/queues: the queues the person can see, each linking to its board and, for the
 * ones they administer, to its settings and permissions; a workspace admin also creates
 * queues here. What the list holds and what may be done is the API's word (GET /me, GET
 * /queues with the effective role on each).
 */
export function AdminQueuesPage() {
  useTitle('Queues');
  const { client } = useAuth();
  const loaded = useLoad(async () => {
    const [me, queues] = await Promise.all([client.GET('/api/v1/me'), client.GET('/api/v1/queues')]);
    return { me: ok(me), queues: ok(queues).sort(byKey) };
  }, [client]);
  const [created, setCreated] = useState<Queue | null>(null);

  return (
    <>
      <PageHeading>Queues</PageHeading>
      <Loading
        loaded={loaded}
        what="the queues"
        render={({ me, queues }) => (
          <>
            {me.role === 'admin' ? (
              <CreateQueue
                onStart={() => setCreated(null)}
                onCreated={(queue) => {
                  setCreated(queue);
                  void loaded.reload();
                }}
              />
            ) : (
              <p className="lead">Workspace admins create queues, and each queue’s admins decide who may use it. Ask an admin of {me.workspace.name} for a new queue.</p>
            )}
            <Status className="admin-status">
              {created && (
                <>
                  The queue {created.key} is created, with the standard statuses.{' '}
                  <Link to={pathTo('permissions', { key: created.key })}>Grant people a role on {created.key}</Link>.
                </>
              )}
            </Status>
            <section aria-labelledby="queues-heading">
              <h2 id="queues-heading">Queues you can see</h2>
              {queues.length === 0 ? (
                <Empty>You see no queues yet. A workspace admin creates them, and an admin of a queue grants people a role on it.</Empty>
              ) : (
                <QueueTable queues={queues} />
              )}
            </section>
          </>
        )}
      />
    </>
  );
}

function QueueTable({ queues }: { queues: Queue[] }) {
  return (
    <table className="data admin-queues">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Name</th>
          <th scope="col">Description</th>
          <th scope="col">Your role</th>
          <th scope="col">
            <span className="visually-hidden">Settings and permissions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {queues.map((queue) => (
          <tr key={queue.id}>
            <th scope="row" data-label="Key">
              <Link to={pathTo('board', { key: queue.key })}>
                {queue.key}
              </Link>
            </th>
            <td data-label="Name">{queue.name}</td>
            <td data-label="Description" className="admin-description">
              {queue.description || <span className="hint">No description</span>}
            </td>
            <td data-label="Your role">
              <span>
                {ROLE_WORDS[queue.role]}
                {queue.role_source === 'inherited' && <span className="admin-tag">workspace admin</span>}
              </span>
            </td>
            <td className="actions">
              {queue.role === 'admin' && (
                <Link to={pathTo('permissions', { key: queue.key })} aria-label={`Settings and permissions of ${queue.key}`}>
                  Settings and permissions
                </Link>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateQueue({ onStart, onCreated }: { onStart: () => void; onCreated: (queue: Queue) => void }) {
  const { client } = useAuth();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<QueueField>();

  const create = (event: FormEvent) =>
    submit(event, {
      check: () => {
        onStart();
        return checkNewQueue({ key, name, description });
      },
      send: async () => {
        const queue = ok(await client.POST('/api/v1/queues', { body: { key: key.trim(), name: name.trim(), description } }));
        setKey('');
        setName('');
        setDescription('');
        onCreated(queue);
      },
      place: (problem) => newQueueProblems(problem, key),
    });

  return (
    <section aria-labelledby="new-queue-heading" className="card">
      <h2 id="new-queue-heading">Create a queue</h2>
      <form ref={formRef} className="admin-form" onSubmit={create} noValidate>
        <div className="admin-pair">
          <Field label="Key" problem={problems.key} hint="2 to 12 letters, digits or _, starting with a letter. It starts each issue key, as in OPS-1.">
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                autoCapitalize="characters"
                spellCheck={false}
                value={key}
                onChange={(e) => setKey(e.target.value)}
              />
            )}
          </Field>
          <Field label="Name" problem={problems.name}>
            {(props) => <input {...props} type="text" autoComplete="off" maxLength={ADMIN_LIMITS.nameMax} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        <Field label="Description" problem={problems.description} hint="What the queue is for (optional).">
          {(props) => <textarea {...props} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <Alert>{general}</Alert>
        <SubmitButton busy={busy}>Create queue</SubmitButton>
      </form>
    </section>
  );
}
