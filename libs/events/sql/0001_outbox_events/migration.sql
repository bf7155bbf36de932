-- The transactional outbox every publishing service keeps in its own schema, written in
-- the same transaction as the change it reports (columns documented in src/outbox.ts;
-- services/issues has the same table through Prisma, model OutboxEvent).
-- Laid out like a Prisma migration so tests create it with createTestSchema(label, 'libs/events/sql').
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
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events"("published_at");

-- The relay's query (published_at IS NULL ORDER BY id) reads only this small index, however
-- many published rows the table keeps.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE "published_at" IS NULL;
