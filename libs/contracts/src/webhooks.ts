import { z } from 'zod';
import { PUBLIC_EVENT_TYPES, typesSelectedBy } from './events';
import { Id, text } from './queues';

/**
 * Webhooks (the notifications service): a workspace admin names a URL and the events to
 * send there; each matching event is POSTed, signed the Standard Webhooks 1.0 way, and
 * retried on failure. Every attempt is kept in the webhook's delivery log.
 */
export const WEBHOOK_LIMITS = {
  /** Webhooks per workspace. */
  perWorkspace: 25,
  urlMax: 2048,
  /** Items of `events` and of `queue_ids`. */
  patterns: 20,
  queueIds: 100,
  descriptionMax: 500,
  /** Deliveries per page of the log: at most, and by default. */
  pageMax: 100,
  pageDefault: 50,
  /** The newest attempts a delivery shows. */
  attemptsShown: 20,
} as const;

/** Deliveries are many (every event to every webhook): their ids go past int4, up to what JSON numbers hold exactly. */
export const DeliveryId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const TYPES_TEXT = PUBLIC_EVENT_TYPES.map((t) => `\`${t}\``).join(', ');

const eventPattern = z
  .string()
  .max(40)
  .refine((item) => typesSelectedBy(item).length > 0, `must be an event type (${PUBLIC_EVENT_TYPES.join(', ')}) or a pattern ending in * that selects one`);

const events = z
  .array(eventPattern)
  .min(1)
  .max(WEBHOOK_LIMITS.patterns)
  .meta({
    description: `Which events to send: types (${TYPES_TEXT}) and patterns ending in \`*\` (\`issue.*\`, or \`*\` for every type, those added later too). 1 to ${WEBHOOK_LIMITS.patterns} items.`,
    examples: [['issue.*', 'comment.added']],
  });

const queueIds = z
  .array(Id)
  .min(1)
  .max(WEBHOOK_LIMITS.queueIds)
  .nullable()
  .meta({
    description: `Only events of these queues (1 to ${WEBHOOK_LIMITS.queueIds} ids; events of no queue, \`user.*\`, are then not sent), or \`null\` for every queue and the workspace's own events.`,
    examples: [[1]],
  });

const url = text(1, WEBHOOK_LIMITS.urlMax).meta({
  description: `Where to POST the events: an \`http\` or \`https\` URL of at most ${WEBHOOK_LIMITS.urlMax} characters, without a user name or password. Its host must resolve to public addresses: loopback, private, link-local, multicast and metadata addresses are refused (422) unless the service's \`WEBHOOK_ALLOWED_TARGETS\` lists them.`,
  examples: ['https://hooks.example.com/tracker'],
});

const description = text(0, WEBHOOK_LIMITS.descriptionMax).nullable().meta({ description: `What the webhook is for, at most ${WEBHOOK_LIMITS.descriptionMax} characters, or \`null\`.`, examples: ['Sync to the CRM'] });

/** POST /api/v1/webhooks body. */
export const WebhookCreate = z.strictObject({
  url,
  events,
  queue_ids: queueIds.optional(),
  description: description.optional(),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

/** PATCH /api/v1/webhooks/{webhook_id} body: only the fields to change. */
export const WebhookUpdate = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  queue_ids: queueIds.optional(),
  description: description.optional(),
  active: z
    .boolean()
    .optional()
    .meta({ description: '`false` stops deliveries (`disabled_reason` then says who stopped them); `true` starts them again, with the events that happen from then on and the deliveries still pending.' }),
});
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

/** A webhook as listed: never its secret. */
export const Webhook = z.object({
  id: Id.meta({ description: 'The webhook id.' }),
  url: z.string().meta({ description: 'Where the events are POSTed.' }),
  events: z.array(z.string()).meta({ description: 'The types and patterns of the events sent, as given.' }),
  queue_ids: z.array(Id).nullable().meta({ description: 'The queues whose events are sent, or `null` for all.' }),
  description: z.string().nullable().meta({ description: 'What the webhook is for.' }),
  active: z.boolean().meta({ description: 'Whether events are being delivered.' }),
  disabled_reason: z
    .string()
    .nullable()
    .meta({ description: 'Why the webhook is inactive: switched off by an admin, the endpoint answered 410 Gone, or its deliveries kept failing through every retry. `null` while active.' }),
  created_at: z.iso.datetime().meta({ description: 'When the webhook was made (UTC).' }),
  updated_at: z.iso.datetime().meta({ description: 'When it last changed (UTC), by an admin or by being disabled.' }),
});
export type Webhook = z.infer<typeof Webhook>;

/** POST /api/v1/webhooks answer: the webhook and its signing secret, shown this once. */
export const WebhookCreated = Webhook.extend({
  secret: z
    .string()
    .meta({
      description: 'The signing secret (`whsec_` then base64), shown this once: store it with the receiver, which checks every delivery\'s `webhook-signature` with it (Standard Webhooks 1.0).',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
});
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed']);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const DeliveryAttempt = z.object({
  attempted_at: z.iso.datetime().meta({ description: 'When the attempt started (UTC).' }),
  status_code: z.number().int().nullable().meta({ description: 'The HTTP status the endpoint answered, or `null` when it gave none (refused, unreachable, timed out).' }),
  duration_ms: z.number().int().nonnegative().meta({ description: 'How long the attempt took, in milliseconds.' }),
  error: z.string().nullable().meta({ description: 'What went wrong, when it did not succeed: the status, a refused address, a timeout, a connection error.' }),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** One event sent (or to be sent) to one webhook, with its attempts. */
export const Delivery = z.object({
  id: DeliveryId.meta({ description: 'The delivery id (what POST …/deliveries/{delivery_id}/retry names).' }),
  event_id: z.uuid().meta({ description: 'The event sent: the `webhook-id` header of every attempt, the same on each.' }),
  event_type: z.string().meta({ description: 'The event\'s type (`webhook.ping` for a ping).' }),
  status: DeliveryStatus.meta({ description: '`pending` (waiting for its next attempt), `succeeded` (an attempt got a 2xx) or `failed` (no more attempts: every retry failed, the endpoint answered 410, or a manual retry or ping failed).' }),
  attempt_count: z.number().int().nonnegative().meta({ description: 'How many attempts were made.' }),
  next_attempt_at: z.iso.datetime().nullable().meta({ description: 'When the next attempt is due (UTC) while pending (while an attempt is under way: when it would be made again, should that one be lost); `null` otherwise.' }),
  created_at: z.iso.datetime().meta({ description: 'When the event was queued for this webhook (UTC).' }),
  attempts: z.array(DeliveryAttempt).max(WEBHOOK_LIMITS.attemptsShown).meta({ description: `The newest ${WEBHOOK_LIMITS.attemptsShown} attempts at most, newest first.` }),
});
export type Delivery = z.infer<typeof Delivery>;

/** Query of GET /api/v1/webhooks/{webhook_id}/deliveries: newest first, a page at a time. */
export const DeliveriesQuery = z.strictObject({
  status: DeliveryStatus.optional().meta({ description: 'Only deliveries in this state. Absent: all.', examples: ['failed'] }),
  before_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .meta({ description: 'Where the page starts: absent for the newest, then `next_before_id` of the previous page.', examples: [120] }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(WEBHOOK_LIMITS.pageMax)
    .default(WEBHOOK_LIMITS.pageDefault)
    .meta({ description: `Deliveries per page, 1 to ${WEBHOOK_LIMITS.pageMax} (default ${WEBHOOK_LIMITS.pageDefault}).`, examples: [WEBHOOK_LIMITS.pageDefault] }),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;

export const DeliveryPage = z.object({
  items: z.array(Delivery).max(WEBHOOK_LIMITS.pageMax).meta({ description: 'Deliveries, newest first, at most `limit`.' }),
  next_before_id: DeliveryId.nullable().meta({ description: 'The `before_id` of the next page; null on the last page.' }),
});
export type DeliveryPage = z.infer<typeof DeliveryPage>;

/** DELETE /api/v1/webhooks/{webhook_id} answer. */
export const WebhookDeleted = z.object({
  id: Id.meta({ description: 'The id of the deleted webhook.' }),
  deleted: z.literal(true).meta({ description: 'Always `true`: nothing more is delivered, pending deliveries included, and its log is gone.' }),
});

/** The `type` of the event POST …/ping sends. */
export const PING_EVENT_TYPE = 'webhook.ping';
