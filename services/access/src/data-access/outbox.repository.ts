import { appendOutboxEvents } from '@tracker/events';
import type { Sql } from '@tracker/kit';
import type { OutboxRepository } from '../domain/ports';

/** Writes integration events in the caller's transaction; a relay publishes them later. */
export function outboxRepository(c: Sql): OutboxRepository {
  return {
    async append(...events) {
      await appendOutboxEvents(c, events);
    },
  };
}
