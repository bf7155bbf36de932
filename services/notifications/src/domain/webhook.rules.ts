import type { AttemptOutcome } from './model';

/** What an attempt got: the status the endpoint answered (null: none) and what went wrong. */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
}

/** Each retry waits its delay of the schedule give or take this share, so endpoints that failed together are not retried together. */
export const RETRY_JITTER = 0.2;

/** The longest `error` an attempt keeps (the column's size). */
export const ATTEMPT_ERROR_MAX = 500;

export const succeeded = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode <= 299;

/** What went wrong, in words, for the delivery log: the sender's own error, else the status answered. */
export function attemptError({ statusCode, error }: AttemptResult): string | null {
  if (succeeded(statusCode)) return null;
  const text = error ?? (statusCode === null ? 'No answer.' : `The endpoint answered ${statusCode}.`);
  return text.length > ATTEMPT_ERROR_MAX ? `${text.slice(0, ATTEMPT_ERROR_MAX - 1)}…` : text;
}

/** The delay before retry `n` (1: the first retry) with jitter; null when the schedule has no such retry. `random` is in [0, 1). */
export function retryDelayMs(scheduleSeconds: readonly number[], n: number, random: number): number | null {
  const seconds = scheduleSeconds[n - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random));
}

/**
 * The delivery's state after an attempt (docs/decisions.md, webhooks): a 2xx succeeds; a 410
 * fails it and switches the webhook off (the endpoint says it is gone for good); a ping or
 * manual retry (`once`) that fails is done; any other failure waits for the next retry of
 * the schedule, and when none is left fails and switches the webhook off.
 */
export function attemptOutcome(input: {
  result: AttemptResult;
  /** Attempts made, this one included. */
  attempts: number;
  once: boolean;
  scheduleSeconds: readonly number[];
  now: Date;
  random: number;
}): AttemptOutcome {
  const { result, attempts, once, scheduleSeconds, now } = input;
  if (succeeded(result.statusCode)) return { status: 'succeeded', nextAttemptAt: null, disable: null };
  if (result.statusCode === 410) {
    return { status: 'failed', nextAttemptAt: null, disable: `The endpoint answered 410 Gone on ${now.toISOString()}: it asked for no more deliveries.` };
  }
  if (once) return { status: 'failed', nextAttemptAt: null, disable: null };
  const delay = retryDelayMs(scheduleSeconds, attempts, input.random);
  if (delay !== null) return { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay), disable: null };
  return {
    status: 'failed',
    nextAttemptAt: null,
    disable: `A delivery failed all of its ${attempts} attempts over ${spanOf(scheduleSeconds)}; the last on ${now.toISOString()}: ${attemptError(result) ?? 'no answer'}`.slice(0, ATTEMPT_ERROR_MAX),
  };
}

/** How long the whole schedule takes, in words. */
function spanOf(scheduleSeconds: readonly number[]): string {
  const total = scheduleSeconds.reduce((sum, s) => sum + s, 0);
  if (total >= 2 * 86_400) return `${Math.round(total / 86_400)} days`;
  if (total >= 2 * 3600) return `${Math.round(total / 3600)} hours`;
  if (total >= 120) return `${Math.round(total / 60)} minutes`;
  return `${total} seconds`;
}

/** Parses WEBHOOK_RETRY_SCHEDULE: the seconds before each retry, comma-separated (each 1 to 7 days' worth). */
export function parseRetrySchedule(text: string): number[] | null {
  const items = text.split(',').map((s) => s.trim());
  if (items.length < 1 || items.length > 30) return null;
  const seconds = items.map((s) => (/^[0-9]{1,6}$/.test(s) ? Number(s) : NaN));
  return seconds.every((s) => s >= 1 && s <= 604_800) ? seconds : null;
}

/** The body of a ping: an event of its own type, with its own id. */
export function pingEvent(input: { id: string; workspaceId: number; webhookId: number; now: Date }): string {
  return JSON.stringify({ id: input.id, type: 'webhook.ping', timestamp: input.now.toISOString(), workspace_id: input.workspaceId, data: { webhook_id: input.webhookId } });
}
