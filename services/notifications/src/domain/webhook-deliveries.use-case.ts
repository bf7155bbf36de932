import { PING_EVENT_TYPE, WEBHOOK_LIMITS, type DeliveriesQuery } from '@tracker/contracts';
import type { NotificationsDeps } from './deps';
import { requireAdmin, webhookOf } from './manage-webhooks.use-case';
import type { DeliveryRecord, RequestContext } from './model';
import { notificationsErrors } from './notifications.errors';
import { pingEvent } from './webhook.rules';

/** GET /api/v1/webhooks/{id}/deliveries: the delivery log, newest first, and where the next page starts. */
export async function listDeliveries(
  deps: NotificationsDeps,
  ctx: RequestContext,
  webhookId: number,
  query: DeliveriesQuery,
): Promise<{ items: DeliveryRecord[]; nextBeforeId: number | null }> {
  await requireAdmin(deps, ctx);
  await webhookOf(deps, ctx, webhookId);
  // One more than asked tells whether a next page exists.
  const rows = await deps.deliveries.page({ webhookId, status: query.status ?? null, beforeId: query.before_id ?? null, limit: query.limit + 1, attemptsShown: WEBHOOK_LIMITS.attemptsShown });
  const items = rows.slice(0, query.limit);
  return { items, nextBeforeId: rows.length > query.limit ? items[items.length - 1]!.id : null };
}

/** POST /api/v1/webhooks/{id}/ping: a `webhook.ping` event, one attempt, due now (inactive webhooks too: it is how an admin tries a fixed endpoint). */
export async function pingWebhook(deps: NotificationsDeps, ctx: RequestContext, webhookId: number): Promise<DeliveryRecord> {
  await requireAdmin(deps, ctx);
  await webhookOf(deps, ctx, webhookId);
  const eventId = deps.newId();
  const payload = pingEvent({ id: eventId, workspaceId: ctx.workspaceId, webhookId, now: deps.clock() });
  return deps.deliveries.queueOnce({ webhookId, eventId, eventType: PING_EVENT_TYPE, payload }, WEBHOOK_LIMITS.attemptsShown);
}

/** POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry: the delivery due now, with the same event id and body. */
export async function retryDelivery(deps: NotificationsDeps, ctx: RequestContext, webhookId: number, deliveryId: number): Promise<DeliveryRecord> {
  await requireAdmin(deps, ctx);
  await webhookOf(deps, ctx, webhookId);
  const delivery = await deps.deliveries.retryNow(webhookId, deliveryId, WEBHOOK_LIMITS.attemptsShown);
  if (!delivery) throw notificationsErrors.deliveryNotFound(deliveryId);
  return delivery;
}
