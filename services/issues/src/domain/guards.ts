import { accessOf, canWrite, type CallerAccess } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { issuesErrors } from './issues.errors';
import { parseIssueKey } from './issue-key.rules';
import type { IssueRecord, RequestContext } from './model';

/** Checks several use cases share: finding an issue the caller may see or change. */

/** The issue behind a key if the caller can read its queue; otherwise 404, as if it did not exist. */
export async function readableIssue(deps: IssuesDeps, ctx: RequestContext, rawKey: string): Promise<{ issue: IssueRecord; access: CallerAccess }> {
  const parsed = parseIssueKey(rawKey);
  // The access lookup runs even for a malformed or unknown key, so timing says nothing about existence.
  const [issue, access] = await Promise.all([
    parsed ? deps.store.reads.findByKey(ctx.workspaceId, parsed.key) : Promise.resolve(null),
    accessOf(deps.grants, ctx),
  ]);
  if (!issue || !access.canRead(issue.queueId)) throw issuesErrors.issueNotFound();
  return { issue, access };
}

/**
 * As readableIssue, for a read that depends on the caller's rights (what it loads is
 * shaped by `access`): the rights first, then `load`, one round trip.
 */
export async function readableIssueLoaded<T extends { queueId: number }>(
  deps: IssuesDeps,
  ctx: RequestContext,
  rawKey: string,
  load: (key: string, access: CallerAccess) => Promise<T | null>,
): Promise<T> {
  const parsed = parseIssueKey(rawKey);
  // As above, the access lookup runs even for a malformed key.
  const access = await accessOf(deps.grants, ctx);
  const issue = parsed ? await load(parsed.key, access) : null;
  if (!issue || !access.canRead(issue.queueId)) throw issuesErrors.issueNotFound();
  return issue;
}

/** As readableIssue, and 403 unless the caller has read-write or admin on the queue. */
export async function writableIssue(deps: IssuesDeps, ctx: RequestContext, rawKey: string) {
  const found = await readableIssue(deps, ctx, rawKey);
  if (!canWrite(found.access.roleOn(found.issue.queueId))) throw issuesErrors.readWriteNeeded();
  return found;
}

/**
 * Queues the caller can read: null means every queue of the workspace (workspace
 * admins); for members, the granted queues that belong to the workspace.
 */
export async function readableQueueIds(deps: IssuesDeps, ctx: RequestContext, access: CallerAccess): Promise<number[] | null> {
  if (access.isWorkspaceAdmin) return null;
  return deps.store.queues.idsInWorkspace(ctx.workspaceId, access.grantedQueueIds());
}

/**
 * A check of a new assignee against the access service, asked at most once per
 * request per id (the answer may be needed before and inside the transaction).
 */
export function assigneeCheck(deps: IssuesDeps, ctx: RequestContext) {
  const asked = new Map<number, Promise<boolean>>();
  const isAssignable = (userId: number) => {
    if (!asked.has(userId)) {
      asked.set(
        userId,
        deps.directory.lookupUsers(ctx.workspaceId, [userId], ctx.requestId).then((users) => users.some((u) => u.id === userId && u.active)),
      );
    }
    return asked.get(userId)!;
  };
  return async (userId: number) => {
    if (!(await isAssignable(userId))) throw issuesErrors.invalidField('assigneeId', 'must be an active user of the workspace');
  };
}
