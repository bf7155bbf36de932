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
