import type { EventEnvelope } from '@tracker/events';
import type { ReplicaStore, ReplicaWriter } from './replica';
import { replicaRefsOf, workspaceConflict, WorkspaceConflictError } from './workspace-rule';

export type ApplyOutcome = 'applied' | 'stale' | 'ignored';

/**
 * Applies one integration event to the replica in one transaction: the aggregate's new
 * state is written only if `aggregate.revision` is newer than the stored one, so a
 * duplicate or an event overtaken by a newer one changes nothing. A comment's text is
 * a fact of its own (not part of the issue state), inserted once by comment id even
 * when the issue state it came with is stale.
 *
 * An event that contradicts the workspaces the replica holds (workspace-rule.ts) throws
 * WorkspaceConflictError before anything is written.
 */
export async function applyEvent(replica: ReplicaStore, event: EventEnvelope): Promise<ApplyOutcome> {
  const revision = event.aggregate.revision;
  const at = new Date(event.occurred_at);
  const sameAggregate = (id: number) => {
    // The revision counts the aggregate named in the envelope; a state of another one cannot be ordered by it.
    if (event.aggregate.id !== String(id)) throw new Error(`event ${event.event_id}: aggregate.id ${event.aggregate.id} does not match the state's id ${id}`);
  };
  const sameWorkspace = async (w: ReplicaWriter) => {
    const conflict = workspaceConflict(event, await w.heldWorkspaces(replicaRefsOf(event)));
    if (conflict) throw new WorkspaceConflictError(conflict);
  };
  switch (event.type) {
    case 'queue.created':
    case 'queue.updated': {
      const { queue } = (event as EventEnvelope<'queue.created'>).data;
      sameAggregate(queue.id);
      const written = await replica.transaction(async (w) => {
        await sameWorkspace(w);
        return w.applyQueues([{ revision, queue }], at);
      });
      return outcome(written);
    }
    case 'issue.created':
    case 'issue.updated':
    case 'worklog.added': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      sameAggregate(issue.id);
      const written = await replica.transaction(async (w) => {
        await sameWorkspace(w);
        return w.applyIssues([{ revision, issue }], at);
      });
      return outcome(written);
    }
    case 'comment.added': {
      const { issue, comment } = (event as EventEnvelope<'comment.added'>).data;
      sameAggregate(issue.id);
      const written = await replica.transaction(async (w) => {
        await sameWorkspace(w);
        const issues = await w.applyIssues([{ revision, issue }], at);
        return issues + (await w.addComments([{ id: comment.id, issueId: issue.id, body: comment.body ?? null }], at));
      });
      return outcome(written);
    }
    default:
      // Permissions and users are not replicated: authorization asks the access service.
      return 'ignored';
  }
}

const outcome = (written: number): ApplyOutcome => (written > 0 ? 'applied' : 'stale');
