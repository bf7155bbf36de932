import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { useAuth } from '../auth';
import { ok, ProblemError } from '../http';
import { MISSING_TITLE, newIssueProblems, type IssueFormProblems } from '../rules/new-issue';
import { Alert, Field, messageOf, SubmitButton, useProblemFocus } from '../ui';

const TITLE_MAX = 500;
const DESCRIPTION_MAX = 100_000;

/** A refusal of any kind, in words, where it belongs. */
const problemsOf = (error: unknown): IssueFormProblems => (error instanceof ProblemError ? newIssueProblems(error.problem) : { form: messageOf(error) });

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
  const [problems, setProblems] = useState<IssueFormProblems>({});
  const [busy, setBusy] = useState(false);
  const titleRef = useRef<HTMLInputElement>(null);
  const { formRef, focusProblem } = useProblemFocus();

  useEffect(() => titleRef.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = title.trim();
    if (!trimmed) {
      setProblems({ title: MISSING_TITLE });
      focusProblem();
      return;
    }
    setBusy(true);
    setProblems({});
    try {
      const created = ok(await client.POST('/api/v1/issues', { body: { queue_id: queueId, title: trimmed, description } }));
      onCreated(created);
    } catch (error) {
      setProblems(problemsOf(error));
      focusProblem();
      setBusy(false);
    }
  };

  const escape = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !busy) onCancel();
  };

  return (
    <section id={id} className="card new-issue" aria-labelledby={`${id}-heading`} onKeyDown={escape}>
      <h2 id={`${id}-heading`}>New issue</h2>
      <form ref={formRef} onSubmit={submit} noValidate>
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
        <Alert>{problems.form}</Alert>
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
