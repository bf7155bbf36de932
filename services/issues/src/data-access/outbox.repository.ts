import { outboxInsert, type EventEnvelope } from '@tracker/events';
import { prepared, type Sql } from '@tracker/kit';

/** Writes integration events in the caller's transaction; a relay publishes them later. */
export function outboxRepository(c: Sql) {
  return {
    async append(...events: EventEnvelope[]): Promise<void> {
      const insert = outboxInsert(events);
      await prepared(c, 'outbox.append', insert.text, insert.values);
    },
  };
}

export type OutboxRepository = ReturnType<typeof outboxRepository>;
