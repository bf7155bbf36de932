import { HISTORY_FIELDS } from '@tracker/contracts';
import { issueFieldNamed, type IssueFieldApiName } from './issue-wire';
import type { FieldChange, IssueFields } from './model';

/** The fields a PATCH may change, in the order their history entries are written: the contract's history fields but `created`. */
export const PATCHABLE_FIELDS: ReadonlyArray<keyof IssueFields> = HISTORY_FIELDS.filter((name): name is IssueFieldApiName => name !== 'created').map(issueFieldNamed);

/** What a PATCH asks for: absent fields stay absent, `null` stays `null` (it clears). */
export type IssuePatch = Partial<IssueFields>;

/** A PATCH's request (routes/requests.ts): the fields, and the `version` the caller last read if it gave one. */
export type UpdateIssueInput = IssuePatch & { version?: number };

/** Labels are a set kept in the order first given. */
export const normalizeLabels = (labels: readonly string[]) => [...new Set(labels)];

export function requestedFields(update: UpdateIssueInput): IssuePatch {
  const { version: _version, ...fields } = update;
  const patch: IssuePatch = { ...fields };
  if (fields.labels !== undefined) patch.labels = normalizeLabels(fields.labels);
  return patch;
}

/**
 * One past the largest position in a status, 1 in an empty one: "at the end". A move
 * reads the largest and applies this; a creation's insert applies the same rule in SQL
 * (issues.repository.ts INSERT_ISSUE), sparing a round trip.
 */
export const endPosition = (maxInStatus: number | null) => (maxInStatus === null ? 1 : maxInStatus + 1);

export const movesToAnotherStatus = (current: Pick<IssueFields, 'statusId'>, patch: IssuePatch) =>
  patch.statusId !== undefined && patch.statusId !== current.statusId;

const same = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b;

/**
 * The fields a PATCH really changes, each with its old and new value. A move to
 * another status without `position` lands at `endOfNewStatus`. An empty result
 * means the PATCH changes nothing (no version bump, no history, no event).
 */
export function diffIssue(current: IssueFields, patch: IssuePatch, endOfNewStatus?: number): FieldChange[] {
  const target: IssuePatch = { ...patch };
  if (movesToAnotherStatus(current, patch) && patch.position === undefined) {
    if (endOfNewStatus === undefined) throw new Error('endOfNewStatus is required for a status move without position');
    target.position = endOfNewStatus;
  }
  const changes: FieldChange[] = [];
  for (const field of PATCHABLE_FIELDS) {
    const to = target[field];
    if (to !== undefined && !same(current[field], to)) changes.push({ field, from: current[field], to });
  }
  return changes;
}

/** The new values of the changed fields, for the repository's update. */
export const changedValues = (changes: readonly FieldChange[]): IssuePatch =>
  Object.fromEntries(changes.map((c) => [c.field, c.to])) as IssuePatch;

/**
 * Whether making `newParentId` the parent of `issueId` closes a loop:
 * `ancestorsOfNewParent` is the chain above the new parent (its parent, grandparent, ...).
 */
export const createsCycle = (issueId: number, newParentId: number, ancestorsOfNewParent: readonly number[]) =>
  newParentId === issueId || ancestorsOfNewParent.includes(issueId);

/**
 * The versions an `If-Match` admits: `any` (`*`), or the versions its entity tags name
 * (none when every tag is weak or foreign, so nothing is admitted).
 */
export type VersionPrecondition = 'any' | readonly number[];

/** Whether a change of the issue at `version` may go ahead under the precondition (none: it may). */
export const admitsVersion = (precondition: VersionPrecondition | undefined, version: number) =>
  precondition === undefined || precondition === 'any' || precondition.includes(version);
