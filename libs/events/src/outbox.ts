import { routingKeyOf, type EventEnvelope } from './events';

/**
 * The outbox row every publishing service writes in the same transaction as the
 * change. Each service keeps the table in its own schema with exactly these
 * columns (see its schema.prisma, model OutboxEvent):
 *
 *   id                bigserial primary key   -- order of writing, never used as a cursor
 *   event_id          uuid unique
 *   type              text                    -- e.g. issue.updated
 *   routing_key       text                    -- tracker.issue.updated
 *   workspace_id      integer
 *   aggregate_type    text
 *   aggregate_id      text
 *   aggregate_revision integer
 *   payload           jsonb                   -- the whole envelope
 *   created_at        timestamptz default now()
 *   published_at      timestamptz null        -- set only after the broker confirmed
 *   attempts          integer default 0
 *   last_error        text null
 *
 * The relay selects unpublished rows with FOR UPDATE SKIP LOCKED (never "id greater
 * than the last one seen", which would skip rows of transactions that commit late).
 */
export interface OutboxRow {
  eventId: string;
  type: string;
  routingKey: string;
  workspaceId: number;
  aggregateType: string;
  aggregateId: string;
  aggregateRevision: number;
  payload: EventEnvelope;
}

export function toOutboxRow(event: EventEnvelope): OutboxRow {
  return {
    eventId: event.event_id,
    type: event.type,
    routingKey: routingKeyOf(event.type),
    workspaceId: event.workspace_id,
    aggregateType: event.aggregate.type,
    aggregateId: event.aggregate.id,
    aggregateRevision: event.aggregate.revision,
    payload: event,
  };
}

/**
 * The statement that writes these events' outbox rows, any number of them in one
 * (parallel arrays, unnest); the caller runs it in the transaction of the change.
 * `table` is the unqualified name on the search_path unless a test names its schema.
 */
export function outboxInsert(events: EventEnvelope[], table = 'outbox_events'): { text: string; values: unknown[] } {
  const rows = events.map(toOutboxRow);
  return {
    text: `INSERT INTO ${table} (event_id, type, routing_key, workspace_id, aggregate_type, aggregate_id, aggregate_revision, payload)
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::int[], $8::jsonb[])`,
    values: [
      rows.map((r) => r.eventId),
      rows.map((r) => r.type),
      rows.map((r) => r.routingKey),
      rows.map((r) => r.workspaceId),
      rows.map((r) => r.aggregateType),
      rows.map((r) => r.aggregateId),
      rows.map((r) => r.aggregateRevision),
      rows.map((r) => JSON.stringify(r.payload)),
    ],
  };
}
