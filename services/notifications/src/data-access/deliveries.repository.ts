import type { Pool } from 'pg';
import { inTransaction, prepared } from '@tracker/kit';
import type { DeliveriesRepository } from '../domain/ports';
import type { AttemptRecord, ClaimedDelivery, DeliveryRecord } from '../domain/model';

/**
 * The delivery queue and log (the `deliveries` and `delivery_attempts` tables). Events are
 * queued for their webhooks by the event log's own statement (events.repository.ts), in the
 * transaction that records them, so an event is never recorded without its deliveries.
 *
 * Workers on any number of replicas share the queue: a claim locks the webhooks it serves
 * (FOR UPDATE SKIP LOCKED: a webhook another worker is claiming for is skipped, never
 * waited for), then, seeing every claim committed before, leases due deliveries up to the
 * webhook's limit in flight. The lease is the claim: an attempt is sent by one worker at a
 * time, and a crashed worker's lease lapses so another sends it again (at least once).
 */
const DELIVERY = `d.id::float8 AS id, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.status,
  d.attempt_count AS "attemptCount", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt",
  coalesce((SELECT json_agg(json_build_object('attemptedAt', a.attempted_at, 'statusCode', a.status_code, 'durationMs', a.duration_ms, 'error', a.error) ORDER BY a.n DESC)
              FROM (SELECT * FROM delivery_attempts WHERE delivery_id = d.id ORDER BY n DESC LIMIT $ATTEMPTS) a), '[]') AS attempts`;

type Row = Omit<DeliveryRecord, 'attempts'> & { attempts: Array<Omit<AttemptRecord, 'attemptedAt'> & { attemptedAt: string }> };
const recordOf = (row: Row): DeliveryRecord => ({ ...row, attempts: row.attempts.map((a) => ({ ...a, attemptedAt: new Date(a.attemptedAt) })) });
/** The delivery columns with the attempts shown bound to parameter `n`. */
const deliveryColumns = (n: number) => DELIVERY.replace('$ATTEMPTS', `$${n}`);

export function deliveriesRepository(pool: Pool): DeliveriesRepository {
  return {
    async page({ webhookId, status, beforeId, limit, attemptsShown }) {
      const rows = await prepared<Row>(
        pool,
        'deliveries.page',
        `SELECT ${deliveryColumns(5)}
           FROM deliveries d
          WHERE d.webhook_id = $1 AND ($2::delivery_status IS NULL OR d.status = $2::delivery_status) AND ($3::bigint IS NULL OR d.id < $3::bigint)
          ORDER BY d.id DESC
          LIMIT $4`,
        [webhookId, status, beforeId, limit, attemptsShown],
      );
      return rows.map(recordOf);
    },

    async queueOnce({ webhookId, eventId, eventType, payload }, attemptsShown) {
      const rows = await prepared<Row>(
        pool,
        'deliveries.queue-once',
        `WITH d AS (
           INSERT INTO deliveries (webhook_id, event_id, event_type, payload, status, once, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, 'pending', true, clock_timestamp(), clock_timestamp())
           RETURNING *
         )
         SELECT ${deliveryColumns(5)} FROM d`,
        [webhookId, eventId, eventType, payload, attemptsShown],
      );
      return recordOf(rows[0]!);
    },

    async retryNow(webhookId, deliveryId, attemptsShown) {
      // A pending delivery keeps its schedule (once stays false); a finished one gets one attempt more.
      const rows = await prepared<Row>(
        pool,
        'deliveries.retry-now',
        `WITH d AS (
           UPDATE deliveries
              SET once = (status <> 'pending'), status = 'pending', next_attempt_at = clock_timestamp()
            WHERE webhook_id = $1 AND id = $2
           RETURNING *
         )
         SELECT ${deliveryColumns(3)} FROM d`,
        [webhookId, deliveryId, attemptsShown],
      );
      return rows[0] ? recordOf(rows[0]) : null;
    },

    async claim({ limit, perEndpoint, leaseMs }) {
      return inTransaction(pool, async (c) => {
        // The webhooks with something due, oldest due first, each locked by this claim alone. The
        // candidates come from a skip scan of the pending index (one probe per webhook with
        // anything pending, whatever the backlog): each webhook's earliest pending delivery.
        const hooks = await prepared<{ id: number; url: string; secretSealed: string }>(
          c,
          'deliveries.claim-webhooks',
          `WITH RECURSIVE candidates AS (
             (SELECT d.webhook_id, d.next_attempt_at FROM deliveries d WHERE d.status = 'pending' ORDER BY d.webhook_id, d.next_attempt_at LIMIT 1)
             UNION ALL
             SELECT n.webhook_id, n.next_attempt_at
               FROM candidates c
              CROSS JOIN LATERAL (
                    SELECT d.webhook_id, d.next_attempt_at FROM deliveries d
                     WHERE d.status = 'pending' AND d.webhook_id > c.webhook_id
                     ORDER BY d.webhook_id, d.next_attempt_at LIMIT 1
                   ) n
           )
           SELECT w.id, w.url, w.secret_sealed AS "secretSealed"
             FROM candidates c
             JOIN webhooks w ON w.id = c.webhook_id
            WHERE c.next_attempt_at <= clock_timestamp()
              AND (w.active OR EXISTS (SELECT 1 FROM deliveries o WHERE o.webhook_id = w.id AND o.status = 'pending' AND o.once))
              -- A webhook with its limit in flight waits for them (the next statement counts exactly; this only spares the slot).
              AND (SELECT count(*) FROM deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.leased_until > clock_timestamp()) < $2
            ORDER BY c.next_attempt_at
            LIMIT $1
              FOR UPDATE OF w SKIP LOCKED`,
          [limit, perEndpoint],
        );
        if (hooks.length === 0) return [];
        // A new statement: it sees the leases of every claim that committed while this one waited.
        const leased = await prepared<Omit<ClaimedDelivery, 'url' | 'secretSealed'>>(
          c,
          'deliveries.claim',
          `WITH picked AS (
             SELECT p.id
               FROM unnest($1::int[]) AS h(id)
               JOIN webhooks w ON w.id = h.id
              CROSS JOIN LATERAL (
                    SELECT d.id, d.next_attempt_at
                      FROM deliveries d
                     WHERE d.webhook_id = h.id AND d.status = 'pending' AND d.next_attempt_at <= clock_timestamp()
                       AND (d.leased_until IS NULL OR d.leased_until <= clock_timestamp()) AND (w.active OR d.once)
                     ORDER BY d.next_attempt_at, d.id
                     LIMIT greatest(0, $2 - (SELECT count(*) FROM deliveries x WHERE x.webhook_id = h.id AND x.status = 'pending' AND x.leased_until > clock_timestamp()))
                   ) p
              ORDER BY p.next_attempt_at
              LIMIT $3
           )
           UPDATE deliveries d
              -- Due again when the claim lapses: a claimed delivery is no longer the oldest due of its webhook.
              SET leased_until = clock_timestamp() + make_interval(secs => $4::float8 / 1000),
                  next_attempt_at = clock_timestamp() + make_interval(secs => $4::float8 / 1000)
             FROM picked
            WHERE d.id = picked.id AND d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until <= clock_timestamp())
           RETURNING d.id::float8 AS id, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.payload, d.attempt_count AS "attemptCount", d.once`,
          [hooks.map((h) => h.id), perEndpoint, limit, leaseMs],
        );
        const byId = new Map(hooks.map((h) => [h.id, h]));
        return leased.map((d) => ({ ...d, url: byId.get(d.webhookId)!.url, secretSealed: byId.get(d.webhookId)!.secretSealed }));
      });
    },

    async finish(delivery, attempt, outcome) {
      // One statement: the attempt, the delivery's new state and (when it says so) the webhook switched off.
      // A delivery deleted meanwhile (its webhook was) is left alone.
      await prepared(
        pool,
        'deliveries.finish',
        `WITH d AS (
           UPDATE deliveries
              SET status = $2::delivery_status, attempt_count = attempt_count + 1, next_attempt_at = $3, leased_until = NULL,
                  once = CASE WHEN $2::delivery_status = 'pending' THEN once ELSE false END
            WHERE id = $1
           RETURNING id, webhook_id, attempt_count
         ), attempt AS (
           INSERT INTO delivery_attempts (delivery_id, n, attempted_at, status_code, duration_ms, error)
           SELECT id, attempt_count, $4, $5, $6, $7 FROM d
         )
         UPDATE webhooks w
            SET active = false, disabled_reason = $8, updated_at = clock_timestamp()
           FROM d
          WHERE $8::text IS NOT NULL AND w.id = d.webhook_id AND w.active`,
        [delivery.id, outcome.status, outcome.nextAttemptAt, attempt.attemptedAt, attempt.statusCode, attempt.durationMs, attempt.error, outcome.disable],
      );
    },

    async prune(before, batch) {
      const rows = await prepared<{ count: number }>(
        pool,
        'deliveries.prune',
        `WITH gone AS (
           DELETE FROM deliveries
            WHERE id IN (SELECT id FROM deliveries WHERE status <> 'pending' AND created_at < $1 ORDER BY id LIMIT $2)
           RETURNING 1
         )
         SELECT count(*)::int AS count FROM gone`,
        [before, batch],
      );
      return rows[0]!.count;
    },

    async backlog() {
      const rows = await prepared<{ due: number; oldest: number | null }>(
        pool,
        'deliveries.backlog',
        `SELECT count(*)::int AS due, extract(epoch FROM clock_timestamp() - min(d.next_attempt_at))::float8 AS oldest
           FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= clock_timestamp() AND (d.leased_until IS NULL OR d.leased_until <= clock_timestamp())
            AND (w.active OR d.once)`,
        [],
      );
      return { due: rows[0]!.due, oldestDueSeconds: Math.max(0, rows[0]!.oldest ?? 0) };
    },
  };
}
