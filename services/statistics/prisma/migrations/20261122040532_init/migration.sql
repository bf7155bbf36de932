-- CreateEnum
CREATE TYPE "status_category" AS ENUM ('open', 'progress', 'done');

-- CreateEnum
CREATE TYPE "issue_priority" AS ENUM ('low', 'normal', 'high', 'critical');

-- CreateTable
CREATE TABLE "queues" (
    "id" INTEGER NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "key" VARCHAR(12) NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "revision" INTEGER NOT NULL,
    "event_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "queues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "statuses" (
    "id" INTEGER NOT NULL,
    "queue_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "category" "status_category" NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issues" (
    "id" INTEGER NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "queue_id" INTEGER NOT NULL,
    "key" VARCHAR(24) NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "status_id" INTEGER NOT NULL,
    "status_category" "status_category" NOT NULL,
    "assignee_id" INTEGER,
    "parent_id" INTEGER,
    "priority" "issue_priority" NOT NULL,
    "type" TEXT NOT NULL,
    "labels" TEXT[],
    "due_date" DATE,
    "estimate_minutes" INTEGER NOT NULL,
    "spent_minutes" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "event_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "search_vector" tsvector,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "comments" (
    "id" INTEGER NOT NULL,
    "issue_id" INTEGER NOT NULL,
    "body" TEXT,
    "event_at" TIMESTAMPTZ(3),
    "search_vector" tsvector,

    CONSTRAINT "comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "replica_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "built" BOOLEAN NOT NULL DEFAULT false,
    "snapshot_at" TIMESTAMPTZ(3),
    "built_at" TIMESTAMPTZ(3),

    CONSTRAINT "replica_state_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboards" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "name" VARCHAR(500) NOT NULL,
    "widgets" JSONB NOT NULL,
    "queue_ids" INTEGER[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboards_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "queues_workspace_id_idx" ON "queues"("workspace_id");

-- CreateIndex
CREATE INDEX "queues_event_at_idx" ON "queues"("event_at");

-- CreateIndex
CREATE INDEX "statuses_queue_id_idx" ON "statuses"("queue_id");

-- CreateIndex
CREATE INDEX "issues_workspace_id_updated_at_id_idx" ON "issues"("workspace_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "issues_queue_id_idx" ON "issues"("queue_id");

-- CreateIndex
CREATE INDEX "issues_event_at_idx" ON "issues"("event_at");

-- CreateIndex
CREATE INDEX "issues_search_vector_idx" ON "issues" USING GIN ("search_vector");

-- CreateIndex
CREATE INDEX "comments_issue_id_idx" ON "comments"("issue_id");

-- CreateIndex
CREATE INDEX "comments_event_at_idx" ON "comments"("event_at");

-- CreateIndex
CREATE INDEX "comments_search_vector_idx" ON "comments" USING GIN ("search_vector");

-- CreateIndex
CREATE INDEX "dashboards_workspace_id_id_idx" ON "dashboards"("workspace_id", "id");

-- AddForeignKey
ALTER TABLE "statuses" ADD CONSTRAINT "statuses_queue_id_fkey" FOREIGN KEY ("queue_id") REFERENCES "queues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "comments" ADD CONSTRAINT "comments_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written below (Prisma does not model triggers).

-- The replica's single state row (id 1) exists from the start: not built. (A CHECK
-- constraint on the id would be better, but prisma-offline's wasm engine panics while
-- diffing one; the code only ever addresses id 1.)
INSERT INTO "replica_state" ("id", "built") VALUES (1, false);

-- Full-text search, as the issues service does it: the 'simple' configuration
-- lower-cases without stemming, so keys, names and mixed-language text match word
-- for word. Functions and triggers name no schema: the migration runs with
-- search_path set to the service's schema.
CREATE FUNCTION issues_search_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector :=
    setweight(to_tsvector('simple'::regconfig, NEW.key), 'A') ||
    setweight(to_tsvector('simple'::regconfig, NEW.title), 'A') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(NEW.description, '')), 'B');
  RETURN NEW;
END
$$;

CREATE TRIGGER issues_search_vector_update
  BEFORE INSERT OR UPDATE OF key, title, description ON issues
  FOR EACH ROW EXECUTE FUNCTION issues_search_vector_update();

CREATE FUNCTION comments_search_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector := to_tsvector('simple'::regconfig, coalesce(NEW.body, ''));
  RETURN NEW;
END
$$;

CREATE TRIGGER comments_search_vector_update
  BEFORE INSERT OR UPDATE OF body ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_search_vector_update();
