import type { Once } from '@tracker/kit';
import { accessOf, canWrite } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { issueCreated } from './events';
import { assigneeCheck } from './guards';
import { formatIssueKey } from './issue-key.rules';
import { normalizeLabels } from './issue-update.rules';
import { issuesErrors } from './issues.errors';
import { extractMentions } from './mentions.rules';
import type { IssueFields, IssueRecord, RequestContext } from './model';
import { initialStatus } from './queues.rules';

/** What a creation asks for (routes/requests.ts): the queue, and the fields but the status and place, which the queue decides. */
export type CreateIssueInput = Omit<IssueFields, 'statusId' | 'position'> & { queueId: number };

/**
 * A new issue at the end of its queue's first `open` status, with a "created" history
 * entry. The key's number comes from the queue's counter inside the transaction:
 * consecutive, never reused. The end is read with the status locked, so racing
 * creations and moves into that status each get their own place, in commit order.
 */
export async function createIssue(deps: IssuesDeps, ctx: RequestContext, input: CreateIssueInput, once?: Once<IssueRecord>): Promise<IssueRecord> {
  const { queueId, ...fields } = input;
  const [access, queue] = await Promise.all([accessOf(deps.grants, ctx), deps.store.queues.findInWorkspace(ctx.workspaceId, queueId)]);
  const role = queue ? access.roleOn(queue.id) : null;
  // Unknown and unreadable queues are the same 403: no existence leak.
  if (!queue || !role) throw issuesErrors.queueNotAccessible('queue_id');
  if (!canWrite(role)) throw issuesErrors.readWriteNeeded();
  if (fields.assigneeId !== null) await assigneeCheck(deps, ctx)(fields.assigneeId);
  const status = initialStatus(queue.statuses);
  if (!status) throw new Error(`queue ${queue.id} has no open status`);

  return deps.store.transaction(async (tx) => {
    if (fields.parentId !== null) {
      const parent = await tx.issues.findInWorkspace(ctx.workspaceId, fields.parentId);
      if (!parent || !access.canRead(parent.queueId)) throw issuesErrors.invalidField('parentId', 'must be an issue you can read');
    }
    const { number, queueKey } = await tx.issues.nextNumberLockingStatus(queue.id, status.id);
    const key = formatIssueKey(queueKey, number);
    const at = deps.clock();
    const issue = await tx.issues.create({
      ...fields,
      labels: normalizeLabels(fields.labels),
      statusId: status.id,
      workspaceId: ctx.workspaceId,
      queueId: queue.id,
      number,
      key,
      createdBy: ctx.userId,
      at,
    });
    await tx.issues.linkMentions(issue, extractMentions(issue.description, key), at);
    await tx.outbox.append(issueCreated(ctx, issue));
    return issue;
  }, once);
}
