-- CreateEnum
CREATE TYPE "delivery_status" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "webhooks" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "events" TEXT[],
    "queue_ids" INTEGER[],
    "description" VARCHAR(500),
    "secret_sealed" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "created_by" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" BIGSERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" VARCHAR(40) NOT NULL,
    "payload" TEXT NOT NULL,
    "status" "delivery_status" NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "once" BOOLEAN NOT NULL DEFAULT false,
    "next_attempt_at" TIMESTAMPTZ(3),
    "leased_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "delivery_id" BIGINT NOT NULL,
    "n" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" VARCHAR(500),

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("delivery_id","n")
);

-- CreateIndex
CREATE INDEX "webhooks_workspace_id_id_idx" ON "webhooks"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "deliveries_webhook_id_id_idx" ON "deliveries"("webhook_id", "id");

-- CreateIndex
CREATE INDEX "deliveries_status_webhook_id_next_attempt_at_idx" ON "deliveries"("status", "webhook_id", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_webhook_id_event_id_key" ON "deliveries"("webhook_id", "event_id");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
