import type { EventEnvelope } from '@tracker/events';

/**
 * The workspace rule: an event may only speak of its own workspace. Queues and issues
 * never change workspace (the issues service has no such operation) and are never
 * deleted, and a comment never changes issue, so whatever the replica holds about them
 * is final: an event contradicting it is refused (dead-lettered), never applied. What the
 * replica does not hold yet is not refused (events of one aggregate arrive in any order,
 * e.g. an issue before its queue's queue.created).
 *
 * Pure: the caller reads what the replica holds about the rows an event names
 * (`replicaRefsOf`) and asks `workspaceConflict`.
 */

/** The replicated rows an event names, whose workspaces decide whether it is accepted. */
export interface ReplicaRefs {
  queueIds: number[];
  issueIds: number[];
  commentIds: number[];
}

/** What the replica holds about those rows; an id it does not hold is absent. */
export interface HeldWorkspaces {
  /** Queue id → its workspace. */
  queues: ReadonlyMap<number, number>;
  /** Issue id → its workspace. */
  issues: ReadonlyMap<number, number>;
  /** Comment id → the issue it belongs to. */
  comments: ReadonlyMap<number, number>;
}

export type WorkspaceConflictRule =
  /** The state the event carries is of another workspace than its envelope. */
  | 'state_workspace'
  /** The queue is held in another workspace. */
  | 'queue_workspace'
  /** The issue is held in another workspace. */
  | 'issue_workspace'
  /** The issue names a queue held in another workspace. */
  | 'issue_queue_workspace'
  /** The issue names a parent issue held in another workspace. */
  | 'parent_workspace'
  /** The comment is held on another issue. */
  | 'comment_issue';

export interface WorkspaceConflict {
  rule: WorkspaceConflictRule;
  message: string;
  /** What the event says (a workspace id, or for comment_issue an issue id). */
  claimed: number;
  /** What the replica holds. */
  held: number;
}

export const NO_REFS: ReplicaRefs = { queueIds: [], issueIds: [], commentIds: [] };

/** The rows an event names: its queue, or its issue with the issue's queue and parent, and its comment. */
export function replicaRefsOf(event: EventEnvelope): ReplicaRefs {
  switch (event.type) {
    case 'queue.created':
    case 'queue.updated':
      return { queueIds: [(event as EventEnvelope<'queue.created'>).data.queue.id], issueIds: [], commentIds: [] };
    case 'issue.created':
    case 'issue.updated':
    case 'worklog.added':
    case 'comment.added': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      const comment = event.type === 'comment.added' ? (event as EventEnvelope<'comment.added'>).data.comment : null;
      return {
        queueIds: [issue.queue_id],
        issueIds: issue.parent_id === null ? [issue.id] : [issue.id, issue.parent_id],
        commentIds: comment ? [comment.id] : [],
      };
    }
    default:
      return NO_REFS;
  }
}

/** The first way `event` contradicts what the replica holds, or null when it does not. */
export function workspaceConflict(event: EventEnvelope, held: HeldWorkspaces): WorkspaceConflict | null {
  const workspace = event.workspace_id;
  const differs = (rule: WorkspaceConflictRule, what: string, heldWorkspace: number | undefined): WorkspaceConflict | null =>
    heldWorkspace !== undefined && heldWorkspace !== workspace
      ? { rule, message: `${what} is in workspace ${heldWorkspace}, not in the event's workspace ${workspace}`, claimed: workspace, held: heldWorkspace }
      : null;
  switch (event.type) {
    case 'queue.created':
    case 'queue.updated': {
      const { queue } = (event as EventEnvelope<'queue.created'>).data;
      return differs('state_workspace', `the queue state ${queue.id}`, queue.workspace_id) ?? differs('queue_workspace', `queue ${queue.id}`, held.queues.get(queue.id));
    }
    case 'issue.created':
    case 'issue.updated':
    case 'worklog.added':
    case 'comment.added': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      const conflict =
        differs('state_workspace', `the issue state ${issue.id}`, issue.workspace_id) ??
        differs('issue_workspace', `issue ${issue.id}`, held.issues.get(issue.id)) ??
        differs('issue_queue_workspace', `the queue ${issue.queue_id} of issue ${issue.id}`, held.queues.get(issue.queue_id)) ??
        (issue.parent_id === null ? null : differs('parent_workspace', `the parent ${issue.parent_id} of issue ${issue.id}`, held.issues.get(issue.parent_id)));
      if (conflict || event.type !== 'comment.added') return conflict;
      const { comment } = (event as EventEnvelope<'comment.added'>).data;
      const heldIssue = held.comments.get(comment.id);
      return heldIssue !== undefined && heldIssue !== issue.id
        ? { rule: 'comment_issue', message: `comment ${comment.id} belongs to issue ${heldIssue}, not to issue ${issue.id}`, claimed: issue.id, held: heldIssue }
        : null;
    }
    default:
      return null;
  }
}

/** Thrown by applyEvent, before anything is written, for an event the workspace rule refuses. */
export class WorkspaceConflictError extends Error {
  constructor(readonly conflict: WorkspaceConflict) {
    super(conflict.message);
    this.name = 'WorkspaceConflictError';
  }
}
