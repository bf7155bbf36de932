import type { EventHandler } from '@tracker/events';
import type { Logger } from '@tracker/kit';
import { applyEvent } from '../domain/apply-event.use-case';
import type { ReplicaStore } from '../domain/replica';

/**
 * Keeps the replica current. A failure throws, so the consumer library retries the
 * delivery and dead-letters it after its last attempt; nothing is acked unapplied.
 */
export function replicaEventsHandler(replica: ReplicaStore, logger: Logger): EventHandler {
  return async (event, meta) => {
    const outcome = await applyEvent(replica, event);
    logger.debug({ rid: meta.requestId, eventId: event.event_id, type: event.type, revision: event.aggregate.revision, attempt: meta.attempt, outcome }, 'event');
  };
}
