import type { IssueCreate } from '@tracker/contracts';
import type { Once } from '@tracker/kit';
import { accessOf, canWrite } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { issueCreated } from './events';
import { assigneeCheck } from './guards';
import { formatIssueKey } from './issue-key.rules';
import { normalizeLabels } from './issue-update.rules';
import { issuesErrors } from './issues.errors';
import { extractMentions } from './mentions.rules';
import type { IssueRecord, RequestContext } from './model';
import { initialStatus } from './queues.rules';

/**
 * A new issue at the end of its queue's first `open` status, with a "created" history
 * entry. The key's number comes from the queue's counter inside the transaction:
 * consecutive, never reused. The end is read with the status locked, so racing
 * creations and moves into that status each get their own place, in commit order.
 */
export async function createIssue(deps: IssuesDeps, ctx: RequestContext, input: IssueCreate, once?: Once<IssueRecord>): Promise<IssueRecord> {
  const [access, queue] = await Promise.all([accessOf(deps.grants, ctx), deps.store.queues.findInWorkspace(ctx.workspaceId, input.queue_id)]);
  const role = queue ? access.roleOn(queue.id) : null;
  // Unknown and unreadable queues are the same 403: no existence leak.
  if (!queue || !role) throw issuesErrors.queueNotAccessible('queue_id');
  if (!canWrite(role)) throw issuesErrors.readWriteNeeded();
  if (input.assignee_id !== null) await assigneeCheck(deps, ctx)(input.assignee_id);
  const status = initialStatus(queue.statuses);
  if (!status) throw new Error(`queue ${queue.id} has no open status`);

  return deps.store.transaction(async (tx) => {
    if (input.parent_id !== null) {
      const parent = await tx.issues.findInWorkspace(ctx.workspaceId, input.parent_id);
      if (!parent || !access.canRead(parent.queueId)) throw issuesErrors.invalidField('parent_id', 'must be an issue you can read');
    }
    const { number, queueKey } = await tx.issues.nextNumberLockingStatus(queue.id, status.id);
    const key = formatIssueKey(queueKey, number);
    const at = deps.clock();
    const issue = await tx.issues.create({
      workspaceId: ctx.workspaceId,
      queueId: queue.id,
      number,
      key,
      title: input.title,
      description: input.description,
      status_id: status.id,
      assignee_id: input.assignee_id,
      parent_id: input.parent_id,
      priority: input.priority,
      type: input.type,
      labels: normalizeLabels(input.labels),
      due_date: input.due_date,
      estimate_minutes: input.estimate_minutes,
      createdBy: ctx.userId,
      at,
    });
    await tx.issues.linkMentions(issue, extractMentions(issue.description, key), at);
    await tx.outbox.append(issueCreated(ctx, issue));
    return issue;
  }, once);
}
