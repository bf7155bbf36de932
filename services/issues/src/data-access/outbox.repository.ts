import { toOutboxRow, type EventEnvelope } from '@tracker/events';
import type { Prisma } from '../generated/prisma/client';
import type { Client } from './prisma';

/** Writes integration events in the caller's transaction; a relay publishes them later. */
export function outboxRepository(c: Client) {
  return {
    async append(...events: EventEnvelope[]): Promise<void> {
      await c.outboxEvent.createMany({
        data: events.map((event) => {
          const row = toOutboxRow(event);
          return { ...row, payload: row.payload as unknown as Prisma.InputJsonValue };
        }),
      });
    },
  };
}

export type OutboxRepository = ReturnType<typeof outboxRepository>;
