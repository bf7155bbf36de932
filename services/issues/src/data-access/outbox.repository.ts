import type { OutboxRepository } from '../domain/ports';
import { appendOutboxEvents, type EventEnvelope } from '@tracker/events';
import type { Sql } from '@tracker/kit';

/** Writes integration events in the caller's transaction; a relay publishes them later. */
export function outboxRepository(c: Sql): OutboxRepository {
  return {
    async append(...events: EventEnvelope[]): Promise<void> {
      await appendOutboxEvents(c, events);
    },
  };
}

