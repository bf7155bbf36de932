import { EventRefused, type EventHandler } from '@tracker/events';
import type { Logger } from '@tracker/kit';
import { applyEvent } from '../domain/apply-event.use-case';
import type { ReplicaStore } from '../domain/replica';
import { WorkspaceConflictError } from '../domain/workspace-rule';

/**
 * Keeps the replica current. A failure throws, so the consumer library retries the
 * delivery and dead-letters it after its last attempt; nothing is acked unapplied. An
 * event that contradicts the workspaces the replica holds is refused (EventRefused):
 * dead-lettered at once, never applied, never retried. (Events not signed by their
 * publisher never get here: the consumer library refuses them.)
 */
export function replicaEventsHandler(replica: ReplicaStore, logger: Logger): EventHandler {
  return async (event, meta) => {
    const about = { rid: meta.requestId, eventId: event.event_id, type: event.type, revision: event.aggregate.revision, attempt: meta.attempt };
    let outcome;
    try {
      outcome = await applyEvent(replica, event);
    } catch (err) {
      if (!(err instanceof WorkspaceConflictError)) throw err;
      logger.debug({ ...about, outcome: 'refused' }, 'event');
      const { rule, claimed, held } = err.conflict;
      throw new EventRefused(err.message, { rule, claimed, held, workspaceId: event.workspace_id });
    }
    logger.debug({ ...about, outcome }, 'event');
  };
}
