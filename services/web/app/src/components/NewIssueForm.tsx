import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { useAuth } from '../auth';
import { ok } from '../http';
import { MISSING_TITLE, newIssueProblems, type IssueFormField } from '../rules/new-issue';
import { Alert, Field, SubmitButton, useCheckedSubmit } from '../ui';

const TITLE_MAX = 500;
const DESCRIPTION_MAX = 100_000;

/**
 * The form of a new issue: its queue (those the person may write to), title and
 * description. A field's problem is told next to it and the field takes the focus;
 * nothing is sent while the title is empty.
 */
export function NewIssueForm({
  id,
  queues,
  initialQueueId,
  onCancel,
  onCreated,
}: {
  id: string;
  queues: Schemas['Queue'][];
  initialQueueId: number;
  onCancel: () => void;
  onCreated: (issue: Schemas['Issue']) => void;
}) {
  const { client } = useAuth();
  const [queueId, setQueueId] = useState(initialQueueId);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const titleRef = useRef<HTMLInputElement>(null);
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<IssueFormField>();

  useEffect(() => titleRef.current?.focus(), []);

  const create = (event: FormEvent) =>
    submit(event, {
      check: () => (title.trim() ? {} : { title: MISSING_TITLE }),
      send: async () => {
        const created = ok(await client.POST('/api/v1/issues', { body: { queue_id: queueId, title: title.trim(), description } }));
        onCreated(created);
      },
      place: newIssueProblems,
    });

  const escape = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !busy) onCancel();
  };

  return (
    <section id={id} className="card new-issue" aria-labelledby={`${id}-heading`} onKeyDown={escape}>
      <h2 id={`${id}-heading`}>New issue</h2>
      <form ref={formRef} onSubmit={create} noValidate>
        <Field label="Queue" problem={problems.queue}>
          {(props) => (
            <select {...props} value={queueId} onChange={(e) => setQueueId(Number(e.target.value))}>
              {queues.map((queue) => (
                <option key={queue.id} value={queue.id}>
                  {queue.name} ({queue.key})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Title" problem={problems.title}>
          {(props) => <input {...props} ref={titleRef} type="text" maxLength={TITLE_MAX} required autoComplete="off" value={title} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <Field label="Description" hint="Optional. Naming another issue's key, such as OPS-1, links the two." problem={problems.description}>
          {(props) => <textarea {...props} rows={5} maxLength={DESCRIPTION_MAX} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <Alert>{general}</Alert>
        <div className="new-issue-actions">
          <SubmitButton busy={busy}>{busy ? 'Creating…' : 'Create issue'}</SubmitButton>
          <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
