import { effectiveRole, type PublicEventType, type QueueRole } from '@tracker/contracts';
import type { EventEnvelope, EventType } from '@tracker/events';
import type { Audience } from './model';

/**
 * The public event of an integration event (docs/decisions.md, "Webhooks and the event
 * feed"): `{id, type, timestamp, workspace_id, data}`, `data` holding the object as the API
 * answers it under its kind's name, the `actor_id`, and on changes the old value of every
 * changed field (`previous`). Pure: everything comes from the event, which its publisher
 * wrote in the transaction of the change, so the order events arrive in does not matter.
 *
 * An event written before its publisher carried what the API answers (issues < 0.13.0,
 * access < 0.10.0) cannot be shown whole: null, and it is skipped.
 */
export interface PublicEventDraft {
  event: { id: string; type: PublicEventType; timestamp: string; workspace_id: number; data: Record<string, unknown> };
  queueId: number | null;
  audience: Audience;
}

/** Every integration event type has its public one of the same name. */
const PUBLIC_TYPE: Record<EventType, PublicEventType> = {
  'issue.created': 'issue.created',
  'issue.updated': 'issue.updated',
  'comment.added': 'comment.added',
  'worklog.added': 'worklog.added',
  'queue.created': 'queue.created',
  'queue.updated': 'queue.updated',
  'permission.changed': 'permission.changed',
  'user.created': 'user.created',
  'user.updated': 'user.updated',
};

type IssueState = EventEnvelope<'issue.created'>['data']['issue'];
type UserState = EventEnvelope<'user.created'>['data']['user'];

export function publicEventOf(event: EventEnvelope): PublicEventDraft | null {
  const shown = shownData(event);
  if (!shown) return null;
  return {
    event: { id: event.event_id, type: PUBLIC_TYPE[event.type], timestamp: event.occurred_at, workspace_id: event.workspace_id, data: { ...shown.data, actor_id: event.actor_id } },
    queueId: shown.queueId,
    audience: shown.audience,
  };
}

function shownData(event: EventEnvelope): { data: Record<string, unknown>; queueId: number | null; audience: Audience } | null {
  switch (event.type) {
    case 'issue.created': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      const shown = issueJson(issue);
      return shown && { data: { issue: shown }, queueId: issue.queue_id, audience: 'queue_readers' };
    }
    case 'issue.updated': {
      const { issue, changes } = (event as EventEnvelope<'issue.updated'>).data;
      const shown = issueJson(issue);
      const previous: Record<string, unknown> = {};
      for (const change of changes) {
        previous[change.field] = change.from;
        if (change.from_truncated) previous[`${change.field}_truncated`] = true;
      }
      return shown && { data: { issue: shown, previous }, queueId: issue.queue_id, audience: 'queue_readers' };
    }
    case 'comment.added': {
      const { issue, comment } = (event as EventEnvelope<'comment.added'>).data;
      if (comment.body === undefined) return null;
      const shown = { id: comment.id, issue_id: issue.id, author_id: comment.author_id, body: comment.body, created_at: comment.created_at, issue_key: issue.key };
      return { data: { comment: shown }, queueId: issue.queue_id, audience: 'queue_readers' };
    }
    case 'worklog.added': {
      const { issue, worklog } = (event as EventEnvelope<'worklog.added'>).data;
      if (worklog.description === undefined) return null;
      const shown = {
        id: worklog.id,
        issue_id: issue.id,
        author_id: worklog.author_id,
        minutes: worklog.minutes,
        description: worklog.description,
        created_at: worklog.created_at,
        issue_key: issue.key,
      };
      return { data: { worklog: shown }, queueId: issue.queue_id, audience: 'queue_readers' };
    }
    case 'queue.created':
    case 'queue.updated': {
      const { queue, previous } = (event as EventEnvelope<'queue.updated'>).data;
      const shown = {
        id: queue.id,
        workspace_id: queue.workspace_id,
        key: queue.key,
        name: queue.name,
        description: queue.description,
        statuses: [...queue.statuses].sort((a, b) => a.position - b.position).map((s) => ({ id: s.id, queue_id: queue.id, name: s.name, category: s.category, position: s.position })),
        created_at: queue.created_at,
        updated_at: queue.updated_at,
      };
      if (event.type === 'queue.created') return { data: { queue: shown }, queueId: queue.id, audience: 'queue_readers' };
      if (!previous) return null;
      return { data: { queue: shown, previous }, queueId: queue.id, audience: 'queue_readers' };
    }
    case 'permission.changed': {
      const data = (event as EventEnvelope<'permission.changed'>).data;
      if (!data.member || data.previous_role === undefined) return null;
      const shown = permissionJson(data.queue_id, data.user_id, data.member, data.role);
      const before = permissionJson(data.queue_id, data.user_id, data.member, data.previous_role);
      const previous: Record<string, unknown> = { explicit_role: data.previous_role };
      if (before.role !== shown.role) previous.role = before.role;
      if (before.role_source !== shown.role_source) previous.role_source = before.role_source;
      return { data: { permission: shown, previous }, queueId: data.queue_id, audience: 'queue_admins' };
    }
    case 'user.created': {
      const { user } = (event as EventEnvelope<'user.created'>).data;
      const shown = userJson(user, event.workspace_id);
      return shown && { data: { user: shown }, queueId: null, audience: 'workspace' };
    }
    case 'user.updated': {
      const { user, previous } = (event as EventEnvelope<'user.updated'>).data;
      const shown = userJson(user, event.workspace_id);
      return shown && previous ? { data: { user: shown, previous }, queueId: null, audience: 'workspace' } : null;
    }
  }
}

/** An issue as the API answers it (contracts Issue), in its field order; null when the event lacks a field of it. */
function issueJson(i: IssueState): Record<string, unknown> | null {
  if (i.description === undefined || i.position === undefined || i.status_name === undefined || i.created_by === undefined) return null;
  return {
    id: i.id,
    key: i.key,
    workspace_id: i.workspace_id,
    queue_id: i.queue_id,
    title: i.title,
    description: i.description,
    status_id: i.status_id,
    assignee_id: i.assignee_id,
    parent_id: i.parent_id,
    priority: i.priority,
    type: i.type,
    labels: i.labels,
    due_date: i.due_date,
    estimate_minutes: i.estimate_minutes,
    spent_minutes: i.spent_minutes,
    version: i.version,
    created_at: i.created_at,
    updated_at: i.updated_at,
    status: { id: i.status_id, name: i.status_name, category: i.status_category },
    position: i.position,
    created_by: i.created_by,
  };
}

/** A user as GET /users answers it (contracts User); null when the event lacks a field of it. */
function userJson(u: UserState, workspaceId: number): Record<string, unknown> | null {
  if (u.email === undefined || u.created_at === undefined || u.updated_at === undefined) return null;
  return { id: u.id, workspace_id: workspaceId, name: u.name, role: u.role, active: u.active, email: u.email, created_at: u.created_at, updated_at: u.updated_at };
}

/** A user's permission on a queue as PUT and DELETE …/permissions/{user_id} answer it (contracts QueuePermission). */
function permissionJson(queueId: number, userId: number, member: { name: string; active: boolean; workspace_role: 'admin' | 'member' }, explicit: QueueRole | null) {
  const effective = effectiveRole(member.workspace_role, explicit);
  return {
    queue_id: queueId,
    user_id: userId,
    name: member.name,
    active: member.active,
    workspace_role: member.workspace_role,
    role: effective?.role ?? null,
    role_source: effective?.role_source ?? null,
    explicit_role: explicit,
    inherited_role: member.workspace_role === 'admin' ? ('admin' as const) : null,
  };
}
