import type { Delivery, Webhook } from '@tracker/contracts';
import type { DeliveryRecord, WebhookRecord } from '../domain/model';

/** The API's JSON of the records: field names and formats as libs/contracts publishes them. */
export const webhookJson = (w: WebhookRecord): Webhook => ({
  id: w.id,
  url: w.url,
  events: w.events,
  queue_ids: w.queueIds,
  description: w.description,
  active: w.active,
  disabled_reason: w.disabledReason,
  created_at: w.createdAt.toISOString(),
  updated_at: w.updatedAt.toISOString(),
});

export const deliveryJson = (d: DeliveryRecord): Delivery => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempt_count: d.attemptCount,
  next_attempt_at: d.status === 'pending' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
  created_at: d.createdAt.toISOString(),
  attempts: d.attempts.map((a) => ({ attempted_at: a.attemptedAt.toISOString(), status_code: a.statusCode, duration_ms: a.durationMs, error: a.error })),
});
