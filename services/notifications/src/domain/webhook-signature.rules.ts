import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signing as Standard Webhooks 1.0 defines it, so its libraries (the
 * `standardwebhooks` packages, Svix's) and `@tracker/client/webhooks` verify what is sent:
 * HMAC-SHA256 over `<id>.<timestamp>.<body>`, keyed by the bytes the secret's base64 part
 * (after `whsec_`) decodes to, sent as `v1,<base64>`.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_USER_AGENT = 'Tracker-Webhooks/1.0';

/** A new secret: `whsec_` and the base64 of 32 random bytes (shown once, kept sealed). */
export const newWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');

/** The key a secret names: the bytes of its base64 part (a secret without the prefix is taken as that part). */
export function webhookKeyOf(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('a webhook secret holds no key');
  return key;
}

/** The `webhook-signature` header value of one attempt. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new Error('a webhook timestamp is whole Unix seconds');
  const digest = createHmac('sha256', webhookKeyOf(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${digest}`;
}

export interface WebhookHeaders {
  'content-type': 'application/json';
  'user-agent': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  [name: string]: string;
}

/**
 * The headers of one attempt: `id` is the event's id (the same on every retry, so receivers
 * drop duplicates by it), `timestampSeconds` this attempt's time (receivers refuse old ones).
 */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): WebhookHeaders {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, id, timestampSeconds, body),
  };
}
