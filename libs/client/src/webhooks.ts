import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './api';

/**
 * Verifying Tracker's webhook deliveries, for the servers that receive them
 * (`@tracker/client/webhooks`: its own entry, since it needs node:crypto and the main entry
 * also runs in browsers). Deliveries follow Standard Webhooks 1.0, so its libraries verify
 * them too; this one needs no dependency.
 *
 * ```ts
 * app.post('/hooks/tracker', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = verifyWebhook(process.env.TRACKER_WEBHOOK_SECRET!, req.headers, req.body);
 *   // drop an event.id already handled (a retry after a lost answer carries the same id)
 *   res.sendStatus(204);
 * });
 * ```
 */

export type WebhookEvent = components['schemas']['PublicEvent'];

/** Why a delivery is not taken: answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Node's `req.headers`, a fetch `Headers`, or a plain object (any case). */
export type WebhookHeadersInput = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the delivery's time may be from now, either way (default 300 s, as the standard advises). */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';

/**
 * The event a delivery carries, once its signature and time are checked; throws a
 * WebhookVerificationError otherwise. `rawBody` must be the bytes received, before any
 * JSON parsing (a re-serialised body does not match). The signature header may hold several
 * space-separated signatures (a sender rotating its secret): one matching `v1` suffices.
 */
export function verifyWebhook(secret: string, headers: WebhookHeadersInput, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('The webhook secret is empty or not base64 (it is `whsec_` and base64, as shown when the webhook was made).');

  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('The webhook-timestamp header is not whole Unix seconds.');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sent = Number(timestamp);
  if (now - sent > tolerance) throw new WebhookVerificationError(`The delivery is too old (sent ${now - sent} s ago; at most ${tolerance} s is taken).`);
  if (sent - now > tolerance) throw new WebhookVerificationError(`The delivery is from the future (${sent - now} s ahead; at most ${tolerance} s is taken): check this machine's clock.`);

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
  const matches = signatures
    .split(' ')
    .filter((item) => item.startsWith('v1,'))
    .some((item) => {
      const given = Buffer.from(item.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError('No signature of the delivery matches: the secret differs, or the body or its headers were changed.');

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The delivery is signed but its body is not JSON.');
  }
}

function header(headers: WebhookHeadersInput, name: string): string {
  let value: string | string[] | null | undefined;
  if (typeof headers.get === 'function') value = (headers as { get(name: string): string | null }).get(name);
  else {
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) value = value.length === 1 ? value[0] : undefined;
  if (typeof value !== 'string' || value === '') throw new WebhookVerificationError(`The ${name} header is missing (or given more than once).`);
  return value;
}
