import type { HistoryField } from '@tracker/contracts';
import type { IssueFields, IssueRecord } from './model';

/**
 * Where the domain's names meet the API's. The domain names an issue's fields in
 * camelCase (model.ts); the API's requests and answers, the history entries (stored and
 * shown) and the integration events name them as the contract does, in snake_case. The
 * use cases convert through this module only: the table for a field's name, and
 * issueWireFields for a whole issue on its way out.
 */

/** The API's name of a field a PATCH may change: a history entry's `field`. */
export type IssueFieldApiName = Exclude<HistoryField, 'created'>;

/** Each field's API name: what requests give, answers and events show, and history entries record. */
export const ISSUE_FIELD_API_NAMES = {
  title: 'title',
  description: 'description',
  statusId: 'status_id',
  position: 'position',
  assigneeId: 'assignee_id',
  parentId: 'parent_id',
  priority: 'priority',
  type: 'type',
  labels: 'labels',
  dueDate: 'due_date',
  estimateMinutes: 'estimate_minutes',
} as const satisfies { readonly [F in keyof IssueFields]: IssueFieldApiName };

// A field the contract's history records (HISTORY_FIELDS) but the table above lacks stops the build here, named.
type Unnamed = Exclude<IssueFieldApiName, (typeof ISSUE_FIELD_API_NAMES)[keyof IssueFields]>;
const everyApiNameHasAField: [Unnamed] extends [never] ? true : Unnamed = true;

const FIELD_OF_API_NAME = new Map(Object.entries(ISSUE_FIELD_API_NAMES).map(([field, apiName]) => [apiName as IssueFieldApiName, field as keyof IssueFields]));

/** The domain's name of the field the API calls `apiName` (the table above, read backwards). */
export const issueFieldNamed = (apiName: IssueFieldApiName): keyof IssueFields => FIELD_OF_API_NAME.get(apiName)!;

/**
 * An issue's own fields as they leave the service, named and formatted as the API and the
 * integration events both carry them; the API answer (routes/json.ts) and the event state
 * (events.ts) each add what only they carry. The order is the answer's.
 */
export const issueWireFields = (i: IssueRecord) => ({
  id: i.id,
  key: i.key,
  workspace_id: i.workspaceId,
  queue_id: i.queueId,
  title: i.title,
  description: i.description,
  status_id: i.statusId,
  assignee_id: i.assigneeId,
  parent_id: i.parentId,
  priority: i.priority,
  type: i.type,
  labels: i.labels,
  due_date: i.dueDate,
  estimate_minutes: i.estimateMinutes,
  spent_minutes: i.spentMinutes,
  version: i.version,
  created_at: i.createdAt.toISOString(),
  updated_at: i.updatedAt.toISOString(),
});
