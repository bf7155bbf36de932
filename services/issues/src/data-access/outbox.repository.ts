import { toOutboxRow, type EventEnvelope } from '@tracker/events';
import { prepared, type Sql } from '@tracker/kit';

/** Writes integration events in the caller's transaction; a relay publishes them later. */
export function outboxRepository(c: Sql) {
  return {
    async append(...events: EventEnvelope[]): Promise<void> {
      const rows = events.map(toOutboxRow);
      await prepared(
        c,
        'outbox.append',
        `INSERT INTO outbox_events (event_id, type, routing_key, workspace_id, aggregate_type, aggregate_id, aggregate_revision, payload)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::int[], $8::jsonb[])`,
        [
          rows.map((r) => r.eventId),
          rows.map((r) => r.type),
          rows.map((r) => r.routingKey),
          rows.map((r) => r.workspaceId),
          rows.map((r) => r.aggregateType),
          rows.map((r) => r.aggregateId),
          rows.map((r) => r.aggregateRevision),
          rows.map((r) => JSON.stringify(r.payload)),
        ],
      );
    },
  };
}

export type OutboxRepository = ReturnType<typeof outboxRepository>;
