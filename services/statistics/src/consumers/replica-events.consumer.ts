import { EventRefused, type EventEnvelope, type EventHandler } from '@tracker/events';
import { batching, type Logger } from '@tracker/kit';
import { applyEvents } from '../domain/apply-event.use-case';
import type { ReplicaStore } from '../domain/ports';
import { WorkspaceConflictError } from '../domain/workspace-rule';

/**
 * Events delivered together (a backlog, a burst of writes) are applied in one transaction
 * (apply-event.use-case.ts: applyEvents); a few such transactions run at once, and the
 * events arriving meanwhile wait for the next. One event alone is applied at once.
 */
export const REPLICA_BATCH = { maxSize: 100, maxInFlight: 3 } as const;

/**
 * Keeps the replica current. A failure throws, so the consumer library retries the
 * delivery and dead-letters it after its last attempt; nothing is acked unapplied. An
 * event that contradicts the workspaces the replica holds is refused (EventRefused):
 * dead-lettered at once, never applied, never retried. (Events not signed by their
 * publisher never get here: the consumer library refuses them.)
 */
export function replicaEventsHandler(replica: ReplicaStore, logger: Logger): EventHandler {
  const apply = batching((events: EventEnvelope[]) => applyEvents(replica, events), REPLICA_BATCH);
  return async (event, meta) => {
    const about = { rid: meta.requestId, eventId: event.event_id, type: event.type, revision: event.aggregate.revision, attempt: meta.attempt };
    let outcome;
    try {
      outcome = await apply(event);
    } catch (err) {
      if (!(err instanceof WorkspaceConflictError)) throw err;
      logger.debug({ ...about, outcome: 'refused' }, 'event');
      const { rule, claimed, held } = err.conflict;
      throw new EventRefused(err.message, { rule, claimed, held, workspaceId: event.workspace_id });
    }
    logger.debug({ ...about, outcome }, 'event');
  };
}
