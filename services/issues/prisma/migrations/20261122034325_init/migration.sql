-- CreateEnum
CREATE TYPE "status_category" AS ENUM ('open', 'progress', 'done');

-- CreateEnum
CREATE TYPE "issue_priority" AS ENUM ('low', 'normal', 'high', 'critical');

-- CreateTable
CREATE TABLE "queues" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "key" VARCHAR(12) NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "revision" INTEGER NOT NULL DEFAULT 1,
    "issue_counter" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "queues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "statuses" (
    "id" SERIAL NOT NULL,
    "queue_id" INTEGER NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "category" "status_category" NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issues" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "queue_id" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "key" VARCHAR(24) NOT NULL,
    "title" VARCHAR(500) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status_id" INTEGER NOT NULL,
    "position" DOUBLE PRECISION NOT NULL,
    "assignee_id" INTEGER,
    "parent_id" INTEGER,
    "priority" "issue_priority" NOT NULL DEFAULT 'normal',
    "type" VARCHAR(50) NOT NULL DEFAULT 'task',
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "due_date" DATE,
    "estimate_minutes" INTEGER NOT NULL DEFAULT 0,
    "spent_minutes" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 1,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_by" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "search_vector" tsvector,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "comments" (
    "id" SERIAL NOT NULL,
    "issue_id" INTEGER NOT NULL,
    "author_id" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "search_vector" tsvector,

    CONSTRAINT "comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worklogs" (
    "id" SERIAL NOT NULL,
    "issue_id" INTEGER NOT NULL,
    "author_id" INTEGER NOT NULL,
    "minutes" INTEGER NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "worklogs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_history" (
    "id" SERIAL NOT NULL,
    "issue_id" INTEGER NOT NULL,
    "field" VARCHAR(50) NOT NULL,
    "from" JSONB,
    "to" JSONB,
    "actor_id" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_history_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_links" (
    "id" SERIAL NOT NULL,
    "source_id" INTEGER NOT NULL,
    "target_id" INTEGER NOT NULL,
    "type" VARCHAR(20) NOT NULL,
    "direction" VARCHAR(10) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_links_pkey" PRIMARY KEY ("id")
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
CREATE UNIQUE INDEX "queues_workspace_id_key_key" ON "queues"("workspace_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "statuses_queue_id_position_key" ON "statuses"("queue_id", "position");

-- CreateIndex
CREATE INDEX "issues_workspace_id_updated_at_idx" ON "issues"("workspace_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "issues_status_id_position_idx" ON "issues"("status_id", "position");

-- CreateIndex
CREATE INDEX "issues_parent_id_idx" ON "issues"("parent_id");

-- CreateIndex
CREATE INDEX "issues_assignee_id_idx" ON "issues"("assignee_id");

-- CreateIndex
CREATE INDEX "issues_search_vector_idx" ON "issues" USING GIN ("search_vector");

-- CreateIndex
CREATE UNIQUE INDEX "issues_queue_id_number_key" ON "issues"("queue_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "issues_workspace_id_key_key" ON "issues"("workspace_id", "key");

-- CreateIndex
CREATE INDEX "comments_issue_id_id_idx" ON "comments"("issue_id", "id");

-- CreateIndex
CREATE INDEX "comments_search_vector_idx" ON "comments" USING GIN ("search_vector");

-- CreateIndex
CREATE INDEX "worklogs_issue_id_id_idx" ON "worklogs"("issue_id", "id");

-- CreateIndex
CREATE INDEX "issue_history_issue_id_id_idx" ON "issue_history"("issue_id", "id");

-- CreateIndex
CREATE INDEX "issue_links_target_id_idx" ON "issue_links"("target_id");

-- CreateIndex
CREATE UNIQUE INDEX "issue_links_source_id_target_id_type_direction_key" ON "issue_links"("source_id", "target_id", "type", "direction");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_event_id_key" ON "outbox_events"("event_id");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events"("published_at");

-- AddForeignKey
ALTER TABLE "statuses" ADD CONSTRAINT "statuses_queue_id_fkey" FOREIGN KEY ("queue_id") REFERENCES "queues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_queue_id_fkey" FOREIGN KEY ("queue_id") REFERENCES "queues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_status_id_fkey" FOREIGN KEY ("status_id") REFERENCES "statuses"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "issues"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "comments" ADD CONSTRAINT "comments_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worklogs" ADD CONSTRAINT "worklogs_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_history" ADD CONSTRAINT "issue_history_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "issues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "issues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Full-text search (hand-written; Prisma does not model triggers). The 'simple'
-- configuration lower-cases without stemming: keys, names and mixed-language text
-- match word for word. Functions and triggers name no schema: the migration runs
-- with search_path set to the service's schema, and the trigger binds the
-- function when it is created.
CREATE FUNCTION issues_search_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector :=
    setweight(to_tsvector('simple'::regconfig, NEW.key), 'A') ||
    setweight(to_tsvector('simple'::regconfig, NEW.title), 'A') ||
    setweight(to_tsvector('simple'::regconfig, NEW.description), 'B');
  RETURN NEW;
END
$$;

CREATE TRIGGER issues_search_vector_update
  BEFORE INSERT OR UPDATE OF key, title, description ON issues
  FOR EACH ROW EXECUTE FUNCTION issues_search_vector_update();

CREATE FUNCTION comments_search_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector := to_tsvector('simple'::regconfig, NEW.body);
  RETURN NEW;
END
$$;

CREATE TRIGGER comments_search_vector_update
  BEFORE INSERT OR UPDATE OF body ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_search_vector_update();

-- The outbox relay (libs/events) selects `published_at IS NULL ORDER BY id`: this partial
-- index stays small however many published rows the table keeps.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE "published_at" IS NULL;
