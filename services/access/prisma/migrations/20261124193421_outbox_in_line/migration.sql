-- Brings access's outbox_events in line with OUTBOX_TABLE (libs/events/src/outbox.ts),
-- the one definition the issues service's table already matches.

-- DropIndex
DROP INDEX "outbox_events_published_at_id_idx";

-- CreateIndex
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events"("published_at");

-- The outbox relay (libs/events) selects `published_at IS NULL ORDER BY id`: this partial
-- index stays small however many published rows the table keeps. Written by hand: Prisma
-- cannot express a partial index.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE "published_at" IS NULL;
