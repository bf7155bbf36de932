import { accessOf, canAdminister, type CallerAccess } from '@tracker/authz';
import type { PublicEventType } from '@tracker/contracts';
import type { NotificationsDeps } from './deps';
import type { FeedPage, Position, Readable, RequestContext } from './model';
import { notificationsErrors } from './notifications.errors';

export interface FeedQuery {
  /** Where the caller left off (null: from the oldest event kept). */
  after: Position | null;
  /** null: every type. */
  types: PublicEventType[] | null;
  limit: number;
}

/**
 * GET /api/v1/events: the events after the caller's cursor that they may read now, as a
 * read of the object through the API would decide (docs/decisions.md, the feed): events of
 * issues, comments, worklogs and queues to the queue's readers, permission changes to the
 * queue's admins, user events to every member (GET /users shows every user to every
 * member). Rights are the caller's at this request, so a grant or revoke holds at once,
 * for earlier events too.
 *
 * A cursor before the workspace's pruned horizon lost events: 410. At most `scanMax`
 * events are looked at, so a caller who may read few of many gets a short (even empty)
 * page whose cursor still moves on; the cursor stays where it was only when nothing
 * follows it.
 */
export async function listEvents(deps: NotificationsDeps, ctx: RequestContext, query: FeedQuery): Promise<FeedPage> {
  const access = await accessOf(deps.grants, ctx);
  const page = await deps.log.page({
    workspaceId: ctx.workspaceId,
    after: query.after ?? 0n,
    types: query.types,
    readable: readableBy(access),
    limit: query.limit,
    scanMax: deps.feed.scanMax,
  });
  if (query.after !== null && query.after < page.prunedThrough) throw notificationsErrors.cursorExpired(deps.retention.hours);
  const start = query.after !== null && query.after > page.prunedThrough ? query.after : page.prunedThrough;
  const full = page.items.length === query.limit;
  const next = full ? page.items[page.items.length - 1]!.position : (page.lastScanned ?? start);
  return { items: page.items, next };
}

/** What the caller reads: everything in the workspace (an admin), else the queues they read and those they administer. */
function readableBy(access: CallerAccess): Readable {
  if (access.isWorkspaceAdmin) return { all: true };
  const readQueueIds = access.grantedQueueIds().filter((id) => access.canRead(id));
  return { all: false, readQueueIds, adminQueueIds: readQueueIds.filter((id) => canAdminister(access.roleOn(id))) };
}
