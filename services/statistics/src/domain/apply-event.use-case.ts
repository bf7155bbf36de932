import type { EventEnvelope } from '@tracker/events';
import type { ReplicaStore } from './replica';

export type ApplyOutcome = 'applied' | 'stale' | 'ignored';

/**
 * Applies one integration event to the replica in one transaction: the aggregate's new
 * state is written only if `aggregate.revision` is newer than the stored one, so a
 * duplicate or an event overtaken by a newer one changes nothing. A comment's text is
 * a fact of its own (not part of the issue state), inserted once by comment id even
 * when the issue state it came with is stale.
 */
export async function applyEvent(replica: ReplicaStore, event: EventEnvelope): Promise<ApplyOutcome> {
  const revision = event.aggregate.revision;
  const at = new Date(event.occurred_at);
  const sameAggregate = (id: number) => {
    // The revision counts the aggregate named in the envelope; a state of another one cannot be ordered by it.
    if (event.aggregate.id !== String(id)) throw new Error(`event ${event.event_id}: aggregate.id ${event.aggregate.id} does not match the state's id ${id}`);
  };
  switch (event.type) {
    case 'queue.created':
    case 'queue.updated': {
      const { queue } = (event as EventEnvelope<'queue.created'>).data;
      sameAggregate(queue.id);
      return outcome(await replica.transaction((w) => w.applyQueues([{ revision, queue }], at)));
    }
    case 'issue.created':
    case 'issue.updated':
    case 'worklog.added': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      sameAggregate(issue.id);
      return outcome(await replica.transaction((w) => w.applyIssues([{ revision, issue }], at)));
    }
    case 'comment.added': {
      const { issue, comment } = (event as EventEnvelope<'comment.added'>).data;
      sameAggregate(issue.id);
      const written = await replica.transaction(async (w) => {
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
