import type { IssueChanges, Schemas } from '@tracker/client';
import { PRIORITIES, type Priority } from './issue-fields';

/**
 * Editing an issue: the form holds text (what the person typed), the API takes typed
 * fields. A save sends only the fields the person changed against the copy they read,
 * with that copy's `version`; when someone else saved first (409 `version_conflict`,
 * 412 `precondition_failed`) the person's changes are carried onto the fresh copy, so
 * nothing they typed is lost and they can save again.
 */

/** The issues service's limits (libs/contracts ISSUE_LIMITS), kept here so the page does not bundle the schemas. */
export const LIMITS = {
  title: 500,
  description: 100_000,
  labels: 50,
  label: 100,
  estimateMinutes: 1_000_000,
  type: 50,
  comment: 50_000,
  worklogMinutes: 1440,
  worklogDescription: 10_000,
} as const;

/** The fields the form edits, as the issue carries them. */
export type EditableIssue = Pick<
  Schemas['IssueDetails'],
  'title' | 'description' | 'type' | 'assignee_id' | 'priority' | 'parent_id' | 'labels' | 'due_date' | 'estimate_minutes'
>;

/**
 * The form's values, as typed: an empty `assignee` is nobody, an empty `dueDate` no date,
 * an empty `parent` no parent. The parent is given by its key, which the page resolves to
 * the id the API takes.
 */
export interface Draft {
  title: string;
  description: string;
  type: string;
  assignee: string;
  priority: string;
  parent: string;
  labels: string;
  dueDate: string;
  estimate: string;
}
export type DraftField = keyof Draft;
export const DRAFT_FIELDS: readonly DraftField[] = ['title', 'description', 'type', 'assignee', 'priority', 'parent', 'labels', 'dueDate', 'estimate'];

/** Kinds of issue the Type field suggests; any other of 1 to 50 characters is taken too. */
export const SUGGESTED_TYPES = ['task', 'bug', 'feature'] as const;

/** What people call each field (the form's labels). */
export const FIELD_NAMES: Record<DraftField, string> = {
  title: 'Title',
  description: 'Description',
  type: 'Type',
  assignee: 'Assignee',
  priority: 'Priority',
  parent: 'Parent issue',
  labels: 'Labels',
  dueDate: 'Due date',
  estimate: 'Estimate',
};

/** Labels as typed: separated by commas, blanks dropped, each once (the first kept), as the API keeps them. */
export function parseLabels(text: string): string[] {
  const labels: string[] = [];
  for (const part of text.split(',')) {
    const label = part.trim();
    if (label && !labels.includes(label)) labels.push(label);
  }
  return labels;
}

export const formatLabels = (labels: readonly string[]): string => labels.join(', ');

/** The parent as the form shows it: its key when known, else its id (the API names the parent by id only). */
export const parentText = (parentId: number | null, parentKey: string | undefined): string => (parentId === null ? '' : (parentKey ?? `#${parentId}`));

/** The form's values for an issue as read; `parentKey` is the key of its parent, when the page knows it. */
export function draftOf(issue: EditableIssue, parentKey?: string): Draft {
  return {
    title: issue.title,
    description: issue.description,
    type: issue.type,
    assignee: issue.assignee_id === null ? '' : String(issue.assignee_id),
    priority: issue.priority,
    parent: parentText(issue.parent_id, parentKey),
    labels: formatLabels(issue.labels),
    dueDate: issue.due_date ?? '',
    estimate: String(issue.estimate_minutes),
  };
}

/**
 * A field's value as it would be saved, for comparing: "a,b" and "a, b" are the same
 * labels, " 90" the same estimate, a title the same with or without outer spaces.
 */
function comparable(draft: Draft, field: DraftField): string {
  switch (field) {
    case 'title':
    case 'type':
      return draft[field].trim();
    case 'parent':
      return draft.parent.trim().toUpperCase();
    case 'labels':
      return JSON.stringify(parseLabels(draft.labels));
    case 'estimate':
    case 'assignee':
    case 'dueDate':
      return draft[field].trim();
    default:
      return draft[field];
  }
}

/** The fields whose value in `draft` differs from `read` (in the form's order). */
export function changedFields(read: Draft, draft: Draft): DraftField[] {
  return DRAFT_FIELDS.filter((field) => comparable(read, field) !== comparable(draft, field));
}

export type DraftProblems = Partial<Record<DraftField, string>>;

const WHOLE_NUMBER = /^\d+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` (YYYY-MM-DD) is a real calendar date from year 1 on. */
function isCalendarDate(value: string): boolean {
  if (!DATE.test(value) || value.startsWith('0000')) return false;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** What is wrong with the fields the person changed, in words, before anything is sent. */
export function draftProblems(read: Draft, draft: Draft): DraftProblems {
  const problems: DraftProblems = {};
  for (const field of changedFields(read, draft)) {
    const problem = fieldProblem(field, draft);
    if (problem) problems[field] = problem;
  }
  return problems;
}

function fieldProblem(field: DraftField, draft: Draft): string | undefined {
  switch (field) {
    case 'title': {
      const title = draft.title.trim();
      if (!title) return 'Give the issue a title.';
      if (title.length > LIMITS.title) return `Keep the title to ${LIMITS.title} characters (it has ${title.length}).`;
      return undefined;
    }
    case 'type': {
      const type = draft.type.trim();
      if (!type) return 'Give the issue a type, such as task or bug.';
      return type.length > LIMITS.type ? `Keep the type to ${LIMITS.type} characters (it has ${type.length}).` : undefined;
    }
    case 'parent':
      return undefined;
    case 'description':
      return draft.description.length > LIMITS.description ? `Keep the description to ${LIMITS.description.toLocaleString('en-US')} characters.` : undefined;
    case 'labels': {
      const labels = parseLabels(draft.labels);
      if (labels.length > LIMITS.labels) return `An issue has at most ${LIMITS.labels} labels (these are ${labels.length}).`;
      const long = labels.find((label) => label.length > LIMITS.label);
      return long ? `Keep each label to ${LIMITS.label} characters; “${long.slice(0, 20)}…” is longer.` : undefined;
    }
    case 'dueDate': {
      const date = draft.dueDate.trim();
      return date && !isCalendarDate(date) ? 'Give the due date as a date (year-month-day), or leave it empty.' : undefined;
    }
    case 'estimate': {
      const estimate = draft.estimate.trim();
      if (!WHOLE_NUMBER.test(estimate) || Number(estimate) > LIMITS.estimateMinutes) {
        return `Give the estimate in whole minutes, from 0 to ${LIMITS.estimateMinutes.toLocaleString('en-US')}.`;
      }
      return undefined;
    }
    case 'priority':
      return (PRIORITIES as readonly string[]).includes(draft.priority) ? undefined : 'Choose a priority.';
    case 'assignee':
      return draft.assignee === '' || WHOLE_NUMBER.test(draft.assignee) ? undefined : 'Choose a person, or nobody.';
  }
}

/** The API's value of one field of the form; `parentId` is the id the parent's key was resolved to (null for none). */
function changeOf(field: DraftField, draft: Draft, parentId: number | null | undefined): IssueChanges {
  switch (field) {
    case 'title':
      return { title: draft.title.trim() };
    case 'type':
      return { type: draft.type.trim() };
    case 'parent':
      if (parentId === undefined) throw new Error('The parent issue’s key was not resolved to its id.');
      return { parent_id: parentId };
    case 'description':
      return { description: draft.description };
    case 'assignee':
      return { assignee_id: draft.assignee === '' ? null : Number(draft.assignee) };
    case 'priority':
      return { priority: draft.priority as Priority };
    case 'labels':
      return { labels: parseLabels(draft.labels) };
    case 'dueDate':
      return { due_date: draft.dueDate.trim() === '' ? null : draft.dueDate.trim() };
    case 'estimate':
      return { estimate_minutes: Number(draft.estimate.trim()) };
  }
}

/**
 * The PATCH body: the changed fields only, with the version read; null when nothing changed.
 * A changed parent needs `parentId`, the id its key names (null for none).
 */
export function updateBody(version: number, read: Draft, draft: Draft, parentId?: number | null): Schemas['IssueUpdate'] | null {
  const fields = changedFields(read, draft);
  if (fields.length === 0) return null;
  return Object.assign({ version }, ...fields.map((field) => changeOf(field, draft, parentId))) as Schemas['IssueUpdate'];
}

/** The person's changes carried onto a fresh copy of the issue, and what the other change did. */
export interface Rebased {
  /** The form's new values: the fresh copy's, with the person's own changes kept over them. */
  draft: Draft;
  /** Fields someone else changed between the copy the person read and the fresh one. */
  theirs: DraftField[];
  /** Fields the person changed that still differ from the fresh copy: what a save would now send. */
  mine: DraftField[];
  /** Fields both changed, to different values: the person's value is kept, theirs is overwritten by a save. */
  clashes: DraftField[];
}

/**
 * Carries the person's edits (`draft` against `read`, the copy they started from) onto
 * `fresh`. A field they did not touch takes the fresh value; a field they changed keeps
 * what they typed, even if someone else changed it too (that is a clash, told to them).
 */
export function rebase(read: Draft, draft: Draft, fresh: Draft): Rebased {
  const edited = new Set(changedFields(read, draft));
  const merged = { ...fresh };
  for (const field of edited) merged[field] = draft[field];
  const theirs = changedFields(read, fresh);
  const mine = changedFields(fresh, merged);
  return { draft: merged, theirs, mine, clashes: theirs.filter((field) => mine.includes(field)) };
}

/** Whether a refused write was refused because the issue changed since it was read. */
export const isStaleEdit = (problem: { status: number; code: string }): boolean =>
  problem.code === 'version_conflict' || problem.code === 'precondition_failed' || problem.status === 409 || problem.status === 412;

const API_FIELDS: Record<string, DraftField> = {
  title: 'title',
  description: 'description',
  type: 'type',
  assignee_id: 'assignee',
  priority: 'priority',
  parent_id: 'parent',
  labels: 'labels',
  due_date: 'dueDate',
  estimate_minutes: 'estimate',
};

/** The form field a 422's `errors[].path` names (`labels.3` is the labels), or null for another part of the body. */
export function fieldOfPath(path: string): DraftField | null {
  const top = path.split('.')[0] ?? '';
  return API_FIELDS[top] ?? null;
}

/**
 * What the page shows after another read of the issue (after a comment, a worklog, a
 * subtask): the fresh lists always; the fresh fields only when the version is still the
 * one read. A newer version is not taken silently, since the form's edits and its save
 * are measured against the copy read: the person is told, and loads it when they choose.
 */
export function withFreshLists<T extends { version: number }>(held: T, fresh: T, lists: ReadonlyArray<keyof T>): { issue: T; newerVersion: boolean } {
  if (fresh.version === held.version) return { issue: fresh, newerVersion: false };
  const issue = { ...held };
  for (const list of lists) issue[list] = fresh[list];
  return { issue, newerVersion: fresh.version > held.version };
}
