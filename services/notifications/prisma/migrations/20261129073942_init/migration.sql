-- CreateEnum
CREATE TYPE "event_audience" AS ENUM ('queue_readers', 'queue_admins', 'workspace');

-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "type" VARCHAR(40) NOT NULL,
    "queue_id" INTEGER,
    "audience" "event_audience" NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,
    "payload" TEXT NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "pruned_horizons" (
    "workspace_id" INTEGER NOT NULL,
    "through_seq" BIGINT NOT NULL,

    CONSTRAINT "pruned_horizons_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");

-- CreateIndex
CREATE INDEX "events_workspace_id_seq_idx" ON "events"("workspace_id", "seq");

-- CreateIndex
CREATE INDEX "events_recorded_at_idx" ON "events"("recorded_at");
