import { accessOf } from '@tracker/authz';
import { WEBHOOK_LIMITS, type WebhookCreate, type WebhookUpdate } from '@tracker/contracts';
import type { NotificationsDeps } from './deps';
import type { WebhookFields } from './ports';
import type { RequestContext, WebhookRecord } from './model';
import { notificationsErrors } from './notifications.errors';

/**
 * POST/GET/PATCH/DELETE /api/v1/webhooks (docs/decisions.md, webhooks). A webhook sends
 * every matching event of the workspace whoever may read it, so only workspace admins
 * manage them; another workspace's webhook is 404. A URL is checked against the targets
 * this service may reach when it is given (422 naming `url`), and again at every
 * connection by the sender.
 */
export async function createWebhook(deps: NotificationsDeps, ctx: RequestContext, input: WebhookCreate): Promise<{ webhook: WebhookRecord; secret: string }> {
  await requireAdmin(deps, ctx);
  await requireReachable(deps, input.url);
  const secret = deps.secrets.generate();
  const webhook = await deps.webhooks.create({
    workspaceId: ctx.workspaceId,
    createdBy: ctx.userId,
    fields: { url: input.url, events: input.events, queueIds: input.queue_ids ?? null, description: input.description ?? null },
    secretSealed: deps.secrets.seal(secret),
    max: WEBHOOK_LIMITS.perWorkspace,
  });
  if (!webhook) throw notificationsErrors.tooManyWebhooks();
  return { webhook, secret };
}

export async function listWebhooks(deps: NotificationsDeps, ctx: RequestContext): Promise<WebhookRecord[]> {
  await requireAdmin(deps, ctx);
  return deps.webhooks.list(ctx.workspaceId);
}

export async function getWebhook(deps: NotificationsDeps, ctx: RequestContext, id: number): Promise<WebhookRecord> {
  await requireAdmin(deps, ctx);
  return webhookOf(deps, ctx, id);
}

export async function updateWebhook(deps: NotificationsDeps, ctx: RequestContext, id: number, input: WebhookUpdate): Promise<WebhookRecord> {
  await requireAdmin(deps, ctx);
  await webhookOf(deps, ctx, id);
  if (input.url !== undefined) await requireReachable(deps, input.url);
  const changes: Partial<WebhookFields> & { disabledReason?: string | null } = {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.events !== undefined ? { events: input.events } : {}),
    ...(input.queue_ids !== undefined ? { queueIds: input.queue_ids } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.active !== undefined ? { active: input.active, disabledReason: input.active ? null : `Switched off by user ${ctx.userId} on ${deps.clock().toISOString()}.` } : {}),
  };
  const updated = await deps.webhooks.update(ctx.workspaceId, id, changes);
  if (!updated) throw notificationsErrors.webhookNotFound(id);
  return updated;
}

export async function deleteWebhook(deps: NotificationsDeps, ctx: RequestContext, id: number): Promise<void> {
  await requireAdmin(deps, ctx);
  if (!(await deps.webhooks.delete(ctx.workspaceId, id))) throw notificationsErrors.webhookNotFound(id);
}

export async function requireAdmin(deps: NotificationsDeps, ctx: RequestContext): Promise<void> {
  if (!(await accessOf(deps.grants, ctx)).isWorkspaceAdmin) throw notificationsErrors.adminsOnly();
}

/** The caller's workspace's webhook `id` (another workspace's is 404, as one that does not exist). */
export async function webhookOf(deps: NotificationsDeps, ctx: RequestContext, id: number): Promise<WebhookRecord> {
  const webhook = await deps.webhooks.get(ctx.workspaceId, id);
  if (!webhook) throw notificationsErrors.webhookNotFound(id);
  return webhook;
}

async function requireReachable(deps: NotificationsDeps, url: string): Promise<void> {
  const refusal = await deps.targets.checkUrl(url);
  if (refusal) throw notificationsErrors.urlRefused(refusal);
}
