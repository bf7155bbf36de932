import type { Logger } from '@tracker/kit';
import type { DeliveriesRepository, WebhookPoster, WebhookSecrets } from '../domain/ports';
import type { AttemptOutcome, ClaimedDelivery } from '../domain/model';
import { attemptError, attemptOutcome } from '../domain/webhook.rules';

export interface DeliveryWorkerDeps {
  deliveries: DeliveriesRepository;
  secrets: WebhookSecrets;
  sender: WebhookPoster;
  /** The Standard Webhooks headers of a body (domain/webhook-signature.rules.ts). */
  sign: (secret: string, eventId: string, timestampSeconds: number, body: string) => Record<string, string>;
  clock: () => Date;
  random: () => number;
  logger: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** Told of every attempt, for the metrics. */
  onAttempt?: (outcome: AttemptOutcome & { statusCode: number | null; durationMs: number }) => void;
}

export interface DeliveryWorkerOptions {
  /** Attempts in flight on this replica at most. */
  concurrency: number;
  /** Attempts in flight per webhook at most, across every replica. */
  perEndpoint: number;
  /** How often the queue is looked at when nothing woke the worker. */
  pollMs: number;
  /** How long a claim holds: longer than an attempt can take (its timeout), so no other worker sends it meanwhile. */
  leaseMs: number;
  /** Seconds before each retry (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleSeconds: readonly number[];
}

/**
 * The delivery worker: claims due deliveries (any replica may; data-access/deliveries.repository.ts
 * keeps an attempt to one worker at a time), sends each as a signed POST, and records the
 * attempt and what follows from it (webhook.rules.ts). Attempts run side by side, up to
 * `concurrency` here and `perEndpoint` per webhook, so a slow or dead endpoint holds only
 * its own few slots while every other webhook's deliveries go on.
 *
 * `stop` claims nothing more and waits for the attempts in flight (each bounded by the
 * sender's timeout), so a restart loses nothing: what was not attempted is still pending,
 * and a claim of a worker that died lapses after `leaseMs`.
 */
export function startDeliveryWorker(deps: DeliveryWorkerDeps, options: DeliveryWorkerOptions): { wake: () => void; stop: () => Promise<void> } {
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wakeUp: (() => void) | null = null;
  // A wake-up while claiming (no wait to end yet) is kept: the loop then claims again at once instead of waiting for the poll.
  let woken = false;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const attempt = async (delivery: ClaimedDelivery) => {
    const attemptedAt = deps.clock();
    const headers = deps.sign(deps.secrets.open(delivery.secretSealed), delivery.eventId, Math.floor(attemptedAt.getTime() / 1000), delivery.payload);
    const result = await deps.sender.send({ url: delivery.url, headers, body: delivery.payload });
    const outcome = attemptOutcome({
      result,
      attempts: delivery.attemptCount + 1,
      once: delivery.once,
      scheduleSeconds: options.retryScheduleSeconds,
      now: deps.clock(),
      random: deps.random(),
    });
    await deps.deliveries.finish(delivery, { attemptedAt, statusCode: result.statusCode, durationMs: Math.round(result.durationMs), error: attemptError(result) }, outcome);
    if (outcome.disable) deps.logger.info({ webhookId: delivery.webhookId, reason: outcome.disable }, 'webhook disabled');
    deps.onAttempt?.({ ...outcome, statusCode: result.statusCode, durationMs: result.durationMs });
  };

  const run = (delivery: ClaimedDelivery) => {
    const task: Promise<void> = attempt(delivery)
      // A failure to record leaves the claim to lapse: the attempt is made again (at least once).
      .catch((err: unknown) => deps.logger.warn({ err, deliveryId: delivery.id }, 'recording a webhook attempt failed; it will be sent again'))
      .finally(() => {
        inFlight.delete(task);
        wake();
      });
    inFlight.add(task);
  };

  const loop = (async () => {
    while (running) {
      woken = false;
      let claimed = 0;
      const free = options.concurrency - inFlight.size;
      if (free > 0) {
        try {
          const due = await deps.deliveries.claim({ limit: free, perEndpoint: options.perEndpoint, leaseMs: options.leaseMs });
          for (const delivery of due) run(delivery);
          claimed = due.length;
        } catch (err) {
          deps.logger.warn({ err }, 'claiming webhook deliveries failed; next try later');
        }
      }
      // A full claim may have left more due: claim again at once. Otherwise wait for a free slot, a wake-up or the next poll.
      if (running && !woken && (free === 0 || claimed < free)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.pollMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeUp = null;
      }
    }
  })();

  return {
    wake,
    stop: async () => {
      running = false;
      wake();
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
