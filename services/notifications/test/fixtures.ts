import { STANDARD_STATUSES, type QueueRole } from '@tracker/contracts';
import { buildEvent, type EventEnvelope, type NewEvent } from '@tracker/events';
import { issueCreateDefaults } from '@tracker/testing';

/**
 * Integration events as the issues and access services publish them, with every field
 * the public events need. Ids of queues, issues and the rest are unique within a test
 * file; workspaces and users come from the fake access service (harness.ts).
 */
let lastId = 0;
export const newId = () => ++lastId;

type QueueState = NewEvent<'queue.created'>['data']['queue'];
type IssueState = NewEvent<'issue.created'>['data']['issue'];
type UserState = NewEvent<'user.created'>['data']['user'];

const AT = '2026-11-01T09:00:00.000Z';

export function queueState(workspaceId: number, key = `Q${newId()}`, fields: Partial<QueueState> = {}): QueueState {
  const id = newId();
  return {
    id,
    workspace_id: workspaceId,
    key,
    name: `Queue ${key}`,
    description: '',
    statuses: STANDARD_STATUSES.map((status) => ({ id: newId(), ...status })),
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

let issueNumber = 0;
export function issueState(queue: QueueState, fields: Partial<IssueState> = {}): IssueState {
  const open = queue.statuses[0]!;
  return {
    id: newId(),
    workspace_id: queue.workspace_id,
    queue_id: queue.id,
    key: `${queue.key}-${++issueNumber}`,
    title: 'An issue',
    ...issueCreateDefaults(),
    status_id: open.id,
    status_category: open.category,
    status_name: open.name,
    spent_minutes: 0,
    version: 1,
    position: 1,
    created_by: 1,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

export function userState(fields: Partial<UserState> & { id: number }): UserState {
  return { name: 'Grace', role: 'member', active: true, email: null, created_at: AT, updated_at: AT, ...fields };
}

const envelope = (workspaceId: number, aggregateId: number | string, revision: number, actorId: number | null, occurredAt?: Date) => ({
  workspaceId,
  aggregateId,
  revision,
  actorId,
  occurredAt,
});

export const events = {
  queueCreated: (queue: QueueState, options: { actor?: number; at?: Date } = {}) =>
    buildEvent({ type: 'queue.created', ...envelope(queue.workspace_id, queue.id, 1, options.actor ?? 1, options.at), data: { queue } }),
  queueUpdated: (queue: QueueState, previous: { name?: string; description?: string }, options: { revision?: number; actor?: number } = {}) =>
    buildEvent({ type: 'queue.updated', ...envelope(queue.workspace_id, queue.id, options.revision ?? 2, options.actor ?? 1), data: { queue, previous } }),
  issueCreated: (issue: IssueState, options: { actor?: number; at?: Date } = {}) =>
    buildEvent({ type: 'issue.created', ...envelope(issue.workspace_id, issue.id, issue.version, options.actor ?? issue.created_by ?? 1, options.at), data: { issue } }),
  issueUpdated: (issue: IssueState, changes: NewEvent<'issue.updated'>['data']['changes'], options: { revision?: number; actor?: number } = {}) =>
    buildEvent({ type: 'issue.updated', ...envelope(issue.workspace_id, issue.id, options.revision ?? issue.version, options.actor ?? 1), data: { issue, changes } }),
  commentAdded: (issue: IssueState, body: string, options: { revision?: number; actor?: number } = {}) =>
    buildEvent({
      type: 'comment.added',
      ...envelope(issue.workspace_id, issue.id, options.revision ?? issue.version + 1, options.actor ?? 1),
      data: { issue, comment: { id: newId(), author_id: options.actor ?? 1, body, created_at: AT } },
    }),
  worklogAdded: (issue: IssueState, minutes: number, description = '', options: { revision?: number; actor?: number } = {}) =>
    buildEvent({
      type: 'worklog.added',
      ...envelope(issue.workspace_id, issue.id, options.revision ?? issue.version + 1, options.actor ?? 1),
      data: { issue, worklog: { id: newId(), author_id: options.actor ?? 1, minutes, description, created_at: AT } },
    }),
  permissionChanged: (
    workspaceId: number,
    grant: { queueId: number; userId: number; role: QueueRole | null; previousRole: QueueRole | null; name?: string; workspaceRole?: 'admin' | 'member' },
    options: { revision?: number; actor?: number } = {},
  ) =>
    buildEvent({
      type: 'permission.changed',
      ...envelope(workspaceId, `${grant.queueId}:${grant.userId}`, options.revision ?? 1, options.actor ?? 1),
      data: {
        queue_id: grant.queueId,
        user_id: grant.userId,
        role: grant.role,
        previous_role: grant.previousRole,
        member: { name: grant.name ?? 'Bob', active: true, workspace_role: grant.workspaceRole ?? 'member' },
      },
    }),
  userCreated: (workspaceId: number, user: UserState, options: { actor?: number | null } = {}) =>
    buildEvent({ type: 'user.created', ...envelope(workspaceId, user.id, 1, options.actor === undefined ? 1 : options.actor), data: { user } }),
  userUpdated: (workspaceId: number, user: UserState, previous: NewEvent<'user.updated'>['data']['previous'], options: { revision?: number; actor?: number } = {}) =>
    buildEvent({ type: 'user.updated', ...envelope(workspaceId, user.id, options.revision ?? 2, options.actor ?? 1), data: { user, previous } }),
};

/** The same event, delivered again (another copy of the same message). */
export const again = <T extends EventEnvelope>(event: T): T => structuredClone(event);
