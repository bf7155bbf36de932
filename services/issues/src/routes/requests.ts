import type { IssueCreate, IssueUpdate } from '@tracker/contracts';
import type { CreateIssueInput } from '../domain/create-issue.use-case';
import { ISSUE_FIELD_API_NAMES } from '../domain/issue-wire';
import { PATCHABLE_FIELDS, type UpdateIssueInput } from '../domain/issue-update.rules';
import type { IssueFields } from '../domain/model';

/**
 * The request bodies, parsed with the contract's schemas (the API's names), as the use
 * cases take them (the domain's names): the way in, as json.ts is the way out.
 */

export const createIssueInput = (body: IssueCreate): CreateIssueInput => ({
  queueId: body.queue_id,
  title: body.title,
  description: body.description,
  assigneeId: body.assignee_id,
  parentId: body.parent_id,
  priority: body.priority,
  type: body.type,
  labels: body.labels,
  dueDate: body.due_date,
  estimateMinutes: body.estimate_minutes,
});

/** The fields the body gives, each under its domain name (ISSUE_FIELD_API_NAMES); absent stays absent, `null` stays `null`. */
export function updateIssueInput(body: IssueUpdate): UpdateIssueInput {
  const input: Record<string, unknown> = {};
  if (body.version !== undefined) input.version = body.version;
  for (const field of PATCHABLE_FIELDS) {
    const value = body[ISSUE_FIELD_API_NAMES[field]];
    if (value !== undefined) input[field] = value;
  }
  return input as UpdateIssueInput;
}

// The body's value of each field is a value of that field, so updateIssueInput copies them as they are: a field whose
// types differ stops the build here, named.
type Misfit<F extends keyof IssueFields = keyof IssueFields> = F extends unknown
  ? Exclude<IssueUpdate[(typeof ISSUE_FIELD_API_NAMES)[F]], undefined> extends IssueFields[F]
    ? never
    : F
  : never;
const everyBodyValueFits: [Misfit] extends [never] ? true : Misfit = true;
