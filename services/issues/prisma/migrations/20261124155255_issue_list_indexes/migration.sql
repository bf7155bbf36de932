-- DropIndex
DROP INDEX "issues_parent_id_idx";

-- CreateIndex
CREATE INDEX "issue_links_source_id_id_idx" ON "issue_links"("source_id", "id");

-- CreateIndex
CREATE INDEX "issues_parent_id_id_idx" ON "issues"("parent_id", "id");
