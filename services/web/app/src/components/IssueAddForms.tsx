import { useRef, useState, type FormEvent, type RefObject } from 'react';
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
  /**
   * A failed check (`refused`, its words already next to the field) sends nothing: the last
   * outcome goes and the focus goes to `fix`. Else `write` runs once at a time; done, `empty`
   * clears what was typed; failed, `fail` and the reason are said and what was typed stays.
   */
  const submit = async (event: FormEvent, step: { refused: boolean; fix: RefObject<HTMLElement | null>; write: () => Promise<string>; fail: string; empty: () => void }) => {
    event.preventDefault();
    if (step.refused) {
      setDone('');
      setProblem('');
      step.fix.current?.focus();
      return;
    }
    if (busy) return;
    setBusy(true);
    setProblem('');
    setDone('');
    try {
      setDone(await step.write());
      step.empty();
    } catch (error) {
      setProblem(`${step.fail} ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return { problem, done, busy, submit };
}

export function CommentForm({ add }: { add: (body: string) => Promise<string> }) {
  const [body, setBody] = useState('');
  const [bodyProblem, setBodyProblem] = useState('');
  const form = useAddForm();
  const ref = useRef<HTMLTextAreaElement>(null);

  const submit = (event: FormEvent) => {
    const text = body.trim();
    const problem = !text ? 'Write the comment first: an empty comment is not added.' : text.length > LIMITS.comment ? `Keep a comment to ${LIMITS.comment.toLocaleString('en-US')} characters.` : '';
    setBodyProblem(problem);
    return form.submit(event, { refused: !!problem, fix: ref, write: () => add(text), fail: 'The comment was not added:', empty: () => setBody('') });
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

  const submit = (event: FormEvent) => {
    const value = minutes.trim();
    const badMinutes = !WHOLE.test(value) || Number(value) < 1 || Number(value) > LIMITS.worklogMinutes;
    setMinutesProblem(badMinutes ? `Give whole minutes, from 1 to ${LIMITS.worklogMinutes} (a day).` : '');
    setDescriptionProblem(description.length > LIMITS.worklogDescription ? `Keep what was done to ${LIMITS.worklogDescription.toLocaleString('en-US')} characters.` : '');
    return form.submit(event, {
      refused: badMinutes || description.length > LIMITS.worklogDescription,
      fix: ref,
      write: () => add(Number(value), description.trim()),
      fail: 'The time was not logged:',
      empty: () => {
        setMinutes('');
        setDescription('');
      },
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

  const submit = (event: FormEvent) => {
    const text = title.trim();
    const problem = !text ? 'Give the subtask a title.' : text.length > LIMITS.title ? `Keep the title to ${LIMITS.title} characters.` : '';
    setTitleProblem(problem);
    return form.submit(event, { refused: !!problem, fix: ref, write: () => add(text), fail: 'The subtask was not added:', empty: () => setTitle('') });
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
