import type { Ref, RefObject, FormEvent } from 'react';
import type { Schemas } from '@tracker/client';
import { FIELD_NAMES, LIMITS, SUGGESTED_TYPES, type Draft, type DraftField, type DraftProblems } from '../rules/issue-edit';
import { PRIORITIES } from '../rules/issue-fields';
import { capitalised } from '../rules/issue-history';
import { listInWords } from '../rules/live-issue';
import { Alert, Field, Status } from '../ui';

type User = Schemas['User'];
type QueueStatus = Schemas['Status'];

/**
 * Why the page holds an older copy of the issue than the API: a write refused as stale, or
 * a newer version (told live, or found by a read) that changed fields the person is
 * editing. `who` made it (null: the person, in another window).
 */
export type Conflict = ({ kind: 'save' } | { kind: 'status'; wanted: string } | { kind: 'live'; who: string | null; fields: DraftField[] }) & {
  /** Each refusal is told afresh (a new alert is read out), even when the words are the same. */
  seq: number;
};

/** What a reload brought: the other person's changes, and which of the person's own are kept over them. */
export interface MergeNote {
  theirs: string[];
  mine: DraftField[];
  clashes: Array<{ field: DraftField; theirs: string }>;
}

const CONFLICT_WORDS: Record<Exclude<Conflict['kind'], 'live'>, string> = {
  save: 'so your changes were not saved. Reload to see their changes: what you typed stays in the fields, and you can save it again.',
  status: 'so the status was not changed. Reload to see their changes, then choose the status again.',
};

function conflictWords(conflict: Conflict): { lead: string; rest: string } {
  if (conflict.kind !== 'live') return { lead: 'Someone changed this issue since you opened it,', rest: CONFLICT_WORDS[conflict.kind] };
  const fields = conflict.fields.map((field) => FIELD_NAMES[field]);
  return {
    lead: conflict.who ? `${conflict.who} changed this issue while you were editing.` : 'This issue was changed in another window while you were editing.',
    rest: `The saved ${listInWords(fields)} now ${fields.length === 1 ? 'differs' : 'differ'} from what you typed. Reload to see their changes: what you typed stays in the fields, and you can save it then.`,
  };
}

export function ConflictAlert({ conflict, reloading, onReload }: { conflict: Conflict; reloading: boolean; onReload: () => void }) {
  const { lead, rest } = conflictWords(conflict);
  return (
    <div className="alert issue-conflict" role="alert">
      <p>
        <strong>{lead}</strong> {rest}
      </p>
      <button type="button" className="secondary" onClick={onReload} aria-disabled={reloading || undefined}>
        Reload
      </button>
    </div>
  );
}

function MergeNotice({ note, noteRef }: { note: MergeNote; noteRef: Ref<HTMLDivElement> }) {
  const theirs = note.theirs.length ? `Changed meanwhile: ${note.theirs.join('; ')}.` : 'None of the fields you can edit was changed.';
  const mine = note.mine.length
    ? `Your changes are kept in the fields (${note.mine.map((field) => FIELD_NAMES[field]).join(', ')}): save to apply them.`
    : 'Nothing of yours is left to save.';
  return (
    <div className="issue-merged" ref={noteRef} tabIndex={-1}>
      <p>
        <strong>Their changes are loaded.</strong> {theirs} {mine}
      </p>
      {note.clashes.length > 0 && (
        <ul>
          {note.clashes.map((clash) => (
            <li key={clash.field}>
              You both changed {FIELD_NAMES[clash.field]}: the field keeps yours; theirs was {clash.theirs}.
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export interface DetailsFormProps {
  statusId: number;
  statuses: QueueStatus[];
  onStatus: (statusId: number) => void;
  statusProblem: string;
  statusDone: string;
  draft: Draft;
  onChange: (field: DraftField, value: string) => void;
  problems: DraftProblems;
  users: User[];
  assigneeName: (id: number) => string;
  changed: DraftField[];
  onSave: (event: FormEvent) => void;
  formProblem: string;
  saved: string;
  conflict: Conflict | null;
  reloading: boolean;
  onReload: () => void;
  merged: MergeNote | null;
  mergedRef: RefObject<HTMLDivElement | null>;
  fieldRefs: RefObject<Partial<Record<DraftField, HTMLElement | null>>>;
}

/** The issue's status (changed at once) and its fields (saved together with "Save changes"). */
export function IssueDetailsForm(props: DetailsFormProps) {
  const { draft, problems, onChange, fieldRefs } = props;
  const refFor = (field: DraftField) => (element: HTMLElement | null) => {
    fieldRefs.current[field] = element;
  };
  // The person assigned may have left (deactivated): still shown, so the form holds the issue as it is.
  const assignees = [...props.users.filter((user) => user.active)].sort((a, b) => a.name.localeCompare(b.name));
  const current = draft.assignee === '' ? null : Number(draft.assignee);
  if (current !== null && !assignees.some((user) => user.id === current)) {
    const known = props.users.some((user) => user.id === current);
    assignees.push({ id: current, name: known ? `${props.assigneeName(current)} (deactivated)` : props.assigneeName(current) } as User);
  }
  const statusKnown = props.statuses.some((status) => status.id === props.statusId);

  return (
    <>
      <div className="issue-status">
        <Field label="Status" hint="A new status is saved as soon as you choose it." problem={props.statusProblem || undefined}>
          {(field) => (
            <select {...field} value={props.statusId} onChange={(e) => props.onStatus(Number(e.target.value))}>
              {!statusKnown && <option value={props.statusId}>Current status</option>}
              {props.statuses.map((status) => (
                <option key={status.id} value={status.id}>
                  {status.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Status>{props.statusDone}</Status>
      </div>
      {props.conflict?.kind === 'status' && <ConflictAlert key={props.conflict.seq} conflict={props.conflict} reloading={props.reloading} onReload={props.onReload} />}

      <form className="issue-form" onSubmit={props.onSave} noValidate>
        {/* Told above the fields, where the person is typing, not under them. */}
        {props.conflict?.kind === 'live' && <ConflictAlert key={props.conflict.seq} conflict={props.conflict} reloading={props.reloading} onReload={props.onReload} />}
        {props.merged && <MergeNotice note={props.merged} noteRef={props.mergedRef} />}
        <Field label="Title" problem={problems.title}>
          {(field) => <input {...field} ref={refFor('title')} type="text" required value={draft.title} onChange={(e) => onChange('title', e.target.value)} />}
        </Field>
        <Field label="Description" hint="Naming another issue’s key in it (such as ABC-12) links the two issues." problem={problems.description}>
          {(field) => (
            <textarea
              {...field}
              ref={refFor('description')}
              rows={6}
              maxLength={LIMITS.description}
              value={draft.description}
              onChange={(e) => onChange('description', e.target.value)}
            />
          )}
        </Field>
        <div className="issue-field-grid">
          <Field label="Type" hint="Such as task, bug or feature." problem={problems.type}>
            {(field) => (
              <>
                <input
                  {...field}
                  ref={refFor('type')}
                  type="text"
                  required
                  maxLength={LIMITS.type}
                  list={`${field.id}-suggestions`}
                  value={draft.type}
                  onChange={(e) => onChange('type', e.target.value)}
                />
                <datalist id={`${field.id}-suggestions`}>
                  {SUGGESTED_TYPES.map((type) => (
                    <option key={type} value={type} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Assignee" problem={problems.assignee}>
            {(field) => (
              <select {...field} ref={refFor('assignee')} value={draft.assignee} onChange={(e) => onChange('assignee', e.target.value)}>
                <option value="">Nobody</option>
                {assignees.map((user) => (
                  <option key={user.id} value={String(user.id)}>
                    {user.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Priority" problem={problems.priority}>
            {(field) => (
              <select {...field} ref={refFor('priority')} value={draft.priority} onChange={(e) => onChange('priority', e.target.value)}>
                {PRIORITIES.map((priority) => (
                  <option key={priority} value={priority}>
                    {capitalised(priority)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Parent issue" hint="The parent’s key, such as OPS-12; leave empty for none." problem={problems.parent}>
            {(field) => <input {...field} ref={refFor('parent')} type="text" value={draft.parent} onChange={(e) => onChange('parent', e.target.value)} />}
          </Field>
          <Field label="Labels" hint="Separate labels with commas." problem={problems.labels}>
            {(field) => <input {...field} ref={refFor('labels')} type="text" value={draft.labels} onChange={(e) => onChange('labels', e.target.value)} />}
          </Field>
          <Field label="Due date" hint="Leave empty for none." problem={problems.dueDate}>
            {(field) => <input {...field} ref={refFor('dueDate')} type="date" value={draft.dueDate} onChange={(e) => onChange('dueDate', e.target.value)} />}
          </Field>
          <Field label="Estimate" hint="In whole minutes; 0 for none." problem={problems.estimate}>
            {(field) => (
              <input
                {...field}
                ref={refFor('estimate')}
                type="number"
                inputMode="numeric"
                min={0}
                max={LIMITS.estimateMinutes}
                step={1}
                value={draft.estimate}
                onChange={(e) => onChange('estimate', e.target.value)}
              />
            )}
          </Field>
        </div>
        {props.conflict?.kind === 'save' && (
          <ConflictAlert key={props.conflict.seq} conflict={props.conflict} reloading={props.reloading} onReload={props.onReload} />
        )}
        <Alert>{props.formProblem}</Alert>
        <div className="issue-form-actions">
          <button type="submit">Save changes</button>
          <p className="help">
            {props.changed.length ? `Not saved yet: ${props.changed.map((field) => FIELD_NAMES[field]).join(', ')}.` : 'No unsaved changes.'}
          </p>
        </div>
        <Status>{props.saved}</Status>
      </form>
    </>
  );
}
