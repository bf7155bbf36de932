-- CreateEnum
CREATE TYPE "queue_role" AS ENUM ('read-only', 'read-write', 'admin');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "queues" (
    "id" INTEGER NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "key" VARCHAR(12) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "queues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "queue_permissions" (
    "queue_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "role" "queue_role",
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "queue_permissions_pkey" PRIMARY KEY ("queue_id","user_id")
);

-- CreateTable
CREATE TABLE "permission_changes" (
    "id" SERIAL NOT NULL,
    "queue_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "actor_id" INTEGER NOT NULL,
    "from_role" "queue_role",
    "to_role" "queue_role",
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "permission_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "routing_key" TEXT NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "aggregate_revision" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "queues_workspace_id_idx" ON "queues"("workspace_id");

-- CreateIndex
CREATE INDEX "queue_permissions_user_id_idx" ON "queue_permissions"("user_id");

-- CreateIndex
CREATE INDEX "permission_changes_queue_id_id_idx" ON "permission_changes"("queue_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_event_id_key" ON "outbox_events"("event_id");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_id_idx" ON "outbox_events"("published_at", "id");

-- AddForeignKey
ALTER TABLE "queues" ADD CONSTRAINT "queues_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "queue_permissions" ADD CONSTRAINT "queue_permissions_queue_id_fkey" FOREIGN KEY ("queue_id") REFERENCES "queues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "queue_permissions" ADD CONSTRAINT "queue_permissions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
