import type { Repositories } from './ports';
import type { CallerAccess } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { issueUpdated } from './events';
import { shownChanges, storedHistory } from './history.rules';
import { assigneeCheck, writableIssue } from './guards';
import {
  admitsVersion,
  changedValues,
  createsCycle,
  diffIssue,
  endPosition,
  movesToAnotherStatus,
  requestedFields,
  type UpdateIssueInput,
  type VersionPrecondition,
} from './issue-update.rules';
import { issuesErrors } from './issues.errors';
import { extractMentions } from './mentions.rules';
import type { IssueRecord, RequestContext } from './model';

/**
 * Changes fields or moves the issue. The version check and the write happen on
 * the locked row, so of N concurrent PATCHes sent with one version exactly one
 * wins. A PATCH that changes nothing keeps the version and writes nothing. A move
 * without `position` goes to the end of the new status, read with that status locked
 * (after the version check, so a stale PATCH never waits for it). `ifMatch` (the
 * request's If-Match) is checked on the locked row too, before the body's `version`:
 * 412 for the one, 409 for the other, both carrying the current version.
 */
export async function updateIssue(
  deps: IssuesDeps,
  ctx: RequestContext,
  key: string,
  update: UpdateIssueInput,
  ifMatch?: VersionPrecondition,
): Promise<IssueRecord> {
  const { issue: seen, access } = await writableIssue(deps, ctx, key);
  const patch = requestedFields(update);
  const checkAssignee = assigneeCheck(deps, ctx);
  // Ask the access service before taking the row lock; inside, the answer is reused.
  if (patch.assigneeId != null && patch.assigneeId !== seen.assigneeId) await checkAssignee(patch.assigneeId);

  return deps.store.transaction(async (tx) => {
    const current = await tx.issues.lock(seen.id);
    if (!admitsVersion(ifMatch, current.version)) throw issuesErrors.preconditionFailed(current.version);
    if (update.version !== undefined && update.version !== current.version) throw issuesErrors.versionConflict(current.version);

    let endOfNewStatus: number | undefined;
    if (movesToAnotherStatus(current, patch)) {
      const status = await tx.issues.statusInQueue(current.queueId, patch.statusId!);
      if (!status) throw issuesErrors.invalidField('statusId', "must be a status of the issue's queue");
      if (patch.position === undefined) endOfNewStatus = endPosition(await tx.issues.lockedMaxPosition(status.id, current.id));
    }
    if (patch.parentId != null && patch.parentId !== current.parentId) await checkParent(tx, ctx, access, current, patch.parentId);
    if (patch.assigneeId != null && patch.assigneeId !== current.assigneeId) await checkAssignee(patch.assigneeId);

    const changes = diffIssue(current, patch, endOfNewStatus);
    if (changes.length === 0) return current;
    const at = deps.clock();
    // History and the event's `changes` keep only the start of a long text (history.rules.ts); the issue gets all of it.
    const updated = await tx.issues.update(current.id, changedValues(changes), { actorId: ctx.userId, changes: storedHistory(changes) }, at);
    if (changes.some((c) => c.field === 'description')) await tx.issues.linkMentions(updated, extractMentions(updated.description, updated.key), at);
    await tx.outbox.append(issueUpdated(ctx, updated, shownChanges(changes)));
    return updated;
  });
}

/** The new parent: an issue of the workspace the caller can read, not the issue itself or one below it. */
async function checkParent(tx: Repositories, ctx: RequestContext, access: CallerAccess, issue: IssueRecord, parentId: number) {
  if (parentId === issue.id) throw issuesErrors.invalidField('parentId', 'an issue cannot be its own parent');
  await tx.issues.lockHierarchy(ctx.workspaceId);
  const parent = await tx.issues.findInWorkspace(ctx.workspaceId, parentId);
  if (!parent || !access.canRead(parent.queueId)) throw issuesErrors.invalidField('parentId', 'must be an issue you can read');
  if (createsCycle(issue.id, parent.id, await tx.issues.ancestorIds(parent.id))) {
    throw issuesErrors.invalidField('parentId', 'would make the issue an ancestor of itself');
  }
}
