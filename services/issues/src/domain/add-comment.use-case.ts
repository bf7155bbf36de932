import { ISSUE_LIMITS, type CommentCreate } from '@tracker/contracts';
import type { Once } from '@tracker/kit';
import type { IssuesDeps } from './deps';
import { commentAdded } from './events';
import { writableIssue } from './guards';
import { issuesErrors } from './issues.errors';
import { extractMentions } from './mentions.rules';
import type { CommentRecord, RequestContext } from './model';

/**
 * A comment by the token owner; issue keys in it become `mentions` links. The version
 * stays. An issue holds at most ISSUE_LIMITS.commentsPerIssue comments: counted by the
 * statement that adds one, with the issue row locked (by touch), so concurrent comments
 * cannot pass the cap together.
 */
export async function addComment(deps: IssuesDeps, ctx: RequestContext, key: string, input: CommentCreate, once?: Once<CommentRecord>): Promise<CommentRecord> {
  const { issue } = await writableIssue(deps, ctx, key);
  return deps.store.transaction(async (tx) => {
    const at = deps.clock();
    const touched = await tx.issues.touch(issue.id, at);
    const max = ISSUE_LIMITS.commentsPerIssue;
    const comment = await tx.issues.addComment(issue.id, ctx.userId, input.body, at, max);
    if (!comment) throw issuesErrors.issueFull('comments', max);
    await tx.issues.linkMentions(touched, extractMentions(input.body, touched.key), at);
    await tx.outbox.append(commentAdded(ctx, touched, comment));
    return comment;
  }, once);
}
