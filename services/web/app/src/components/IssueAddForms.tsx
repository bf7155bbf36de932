import { useRef, useState, type FormEvent } from 'react';
import { LIMITS } from '../rules/issue-edit';
import { Alert, Field, messageOf, Status } from '../ui';

/**
 * The small forms that add to an issue's lists. Each checks what it can before sending,
 * says what is wrong next to the field, keeps what was typed when the write fails, and
 * empties itself once it succeeded. `add` answers the words that say what was done.
 */
function useAddForm() {
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const run = async (write: () => Promise<string>, fail: string, onDone: () => void) => {
    if (busy) return;
    setBusy(true);
    setProblem('');
    setDone('');
    try {
      setDone(await write());
      onDone();
    } catch (error) {
      setProblem(`${fail} ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return { problem, setProblem, done, setDone, busy, run };
}

export function CommentForm({ add }: { add: (body: string) => Promise<string> }) {
  const [body, setBody] = useState('');
  const [bodyProblem, setBodyProblem] = useState('');
  const form = useAddForm();
  const ref = useRef<HTMLTextAreaElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = body.trim();
    const problem = !text ? 'Write the comment first: an empty comment is not added.' : text.length > LIMITS.comment ? `Keep a comment to ${LIMITS.comment.toLocaleString('en-US')} characters.` : '';
    setBodyProblem(problem);
    if (problem) {
      form.setDone('');
      form.setProblem('');
      ref.current?.focus();
      return;
    }
    await form.run(() => add(text), 'The comment was not added:', () => setBody(''));
  };

  return (
    <form className="issue-add-form" onSubmit={submit} noValidate>
      <Field label="Comment" hint="Naming another issue’s key in it (such as ABC-12) links the two issues." problem={bodyProblem}>
        {(props) => <textarea {...props} ref={ref} rows={4} value={body} onChange={(e) => setBody(e.target.value)} />}
      </Field>
      <div className="issue-form-actions">
        <button type="submit" aria-disabled={form.busy || undefined}>
          Add comment
        </button>
      </div>
      <Alert>{form.problem}</Alert>
      <Status>{form.done}</Status>
    </form>
  );
}

const WHOLE = /^\d+$/;

export function WorklogForm({ add }: { add: (minutes: number, description: string) => Promise<string> }) {
  const [minutes, setMinutes] = useState('');
  const [description, setDescription] = useState('');
  const [minutesProblem, setMinutesProblem] = useState('');
  const [descriptionProblem, setDescriptionProblem] = useState('');
  const form = useAddForm();
  const ref = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = minutes.trim();
    const badMinutes = !WHOLE.test(value) || Number(value) < 1 || Number(value) > LIMITS.worklogMinutes;
    setMinutesProblem(badMinutes ? `Give whole minutes, from 1 to ${LIMITS.worklogMinutes} (a day).` : '');
    setDescriptionProblem(description.length > LIMITS.worklogDescription ? `Keep what was done to ${LIMITS.worklogDescription.toLocaleString('en-US')} characters.` : '');
    if (badMinutes || description.length > LIMITS.worklogDescription) {
      form.setDone('');
      form.setProblem('');
      ref.current?.focus();
      return;
    }
    await form.run(() => add(Number(value), description.trim()), 'The time was not logged:', () => {
      setMinutes('');
      setDescription('');
    });
  };

  return (
    <form className="issue-add-form" onSubmit={submit} noValidate>
      <div className="issue-worklog-fields">
        <Field label="Minutes" hint="Whole minutes, 1 to 1440." problem={minutesProblem}>
          {(props) => (
            <input
              {...props}
              ref={ref}
              type="number"
              inputMode="numeric"
              min={1}
              max={LIMITS.worklogMinutes}
              step={1}
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          )}
        </Field>
        <Field label="What was done (optional)" problem={descriptionProblem}>
          {(props) => <input {...props} type="text" value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
      </div>
      <div className="issue-form-actions">
        <button type="submit" aria-disabled={form.busy || undefined}>
          Log time
        </button>
      </div>
      <Alert>{form.problem}</Alert>
      <Status>{form.done}</Status>
    </form>
  );
}

export function SubtaskForm({ add }: { add: (title: string) => Promise<string> }) {
  const [title, setTitle] = useState('');
  const [titleProblem, setTitleProblem] = useState('');
  const form = useAddForm();
  const ref = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = title.trim();
    const problem = !text ? 'Give the subtask a title.' : text.length > LIMITS.title ? `Keep the title to ${LIMITS.title} characters.` : '';
    setTitleProblem(problem);
    if (problem) {
      form.setDone('');
      form.setProblem('');
      ref.current?.focus();
      return;
    }
    await form.run(() => add(text), 'The subtask was not added:', () => setTitle(''));
  };

  return (
    <form className="issue-add-form" onSubmit={submit} noValidate>
      <div className="issue-inline-row">
        <Field label="New subtask" problem={titleProblem}>
          {(props) => <input {...props} ref={ref} type="text" maxLength={LIMITS.title} value={title} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <button type="submit" aria-disabled={form.busy || undefined}>
          Add subtask
        </button>
      </div>
      <Alert>{form.problem}</Alert>
      <Status>{form.done}</Status>
    </form>
  );
}
