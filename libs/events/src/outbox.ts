import { writeAtCommit } from '@tracker/kit';
import { routingKeyOf, type EventEnvelope } from './events';

/**
 * The outbox table, defined once: every publishing service (access, issues) keeps it in
 * its own schema, and its Prisma migrations must produce exactly these columns and
 * indexes (libs/events/test/outbox-table.test.ts applies each service's migrations and
 * compares). A service writes its rows in the same transaction as the change they report
 * (`appendOutboxEvents`); the relay (relay.ts) publishes them.
 *
 * The relay selects `published_at IS NULL ... ORDER BY id FOR UPDATE SKIP LOCKED` (never
 * "id greater than the last one seen", which would skip rows of transactions that commit
 * late); the partial index keeps that query cheap however many published rows the table
 * keeps. Prisma cannot express a partial index, so each service's migration adds it in
 * hand-written SQL at its end.
 */
export const OUTBOX_TABLE = {
  name: 'outbox_events',
  sql: `
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,                   -- order of writing, never used as a cursor
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,                      -- issue.updated
    "routing_key" TEXT NOT NULL,               -- tracker.issue.updated
    "workspace_id" INTEGER NOT NULL,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "aggregate_revision" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,                  -- the whole envelope, published as is
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),             -- set only after the broker confirmed
    "attempts" INTEGER NOT NULL DEFAULT 0,     -- publish attempts, confirmed or not
    "last_error" TEXT,                         -- why the last unconfirmed attempt failed

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "outbox_events_event_id_key" ON "outbox_events"("event_id");

-- For pruning published rows (published_at < now() - interval).
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events"("published_at");

-- The relay's query reads only this small index.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE "published_at" IS NULL;
`,
} as const;

/** One event as an outbox row (the columns a service writes; the others have defaults). */
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

/** `"schema".outbox_events`, with the schema quoted as an identifier. */
export function outboxTable(schema: string): string {
  if (!schema) throw new Error('outbox schema name is empty');
  return `"${schema.replace(/"/g, '""')}".outbox_events`;
}

/**
 * The statement that writes these events' outbox rows, any number of them in one
 * (parallel arrays, unnest). `table` is the unqualified name on the search_path unless a
 * test names its schema (`outboxTable(schema)`).
 */
export function outboxInsert(events: EventEnvelope[], table: string = OUTBOX_TABLE.name): { text: string; values: unknown[] } {
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

/**
 * Where outbox rows are written: a node-postgres `Pool`, or the `PoolClient` of the
 * change's transaction (the usual case). Any object running a query config fits, so a
 * service still on Prisma passes a thin adapter over its transaction.
 */
export interface OutboxWriter {
  query(query: { name?: string; text: string; values: unknown[] }): Promise<unknown>;
}

/**
 * The one way a service appends events to its outbox: run it inside the transaction of
 * the change they report, so both commit or neither does. Nothing reads the rows back
 * in that transaction, so they are written with its COMMIT (libs/kit writeAtCommit). A
 * prepared statement (its text is the same whatever the number of events).
 */
export async function appendOutboxEvents(db: OutboxWriter, events: EventEnvelope[]): Promise<void> {
  await writeAtCommit(db, { name: 'outbox.append', ...outboxInsert(events) });
}
