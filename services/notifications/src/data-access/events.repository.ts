import type { Pool } from 'pg';
import { inTransaction, prepared } from '@tracker/kit';
import type { PublicEventType } from '@tracker/contracts';
import type { EventLog } from '../domain/ports';

/**
 * The event log's SQL (the `events` and `pruned_horizons` tables of this service's schema).
 *
 * Positions (`seq`, a bigserial) are taken under a transaction-scoped advisory lock per
 * workspace, held until COMMIT: two transactions recording events of one workspace run one
 * after the other, so within a workspace a later position never commits before an earlier
 * one, and a reader who has seen position n has seen every event of the workspace up to n.
 * (Without the lock, a transaction that took position 10 and committed after the one that
 * took 11 would hide 10 from a reader that passed 11.) The lock is per workspace, so
 * workspaces never wait for each other; delivery batches take theirs in workspace order.
 */
const WORKSPACE_LOCK = 0x6e6f7469; // "noti": this service's namespace of advisory locks

export function eventsRepository(pool: Pool): EventLog {
  return {
    async record(events) {
      const workspaces = [...new Set(events.map((e) => e.workspaceId))].sort((a, b) => a - b);
      return inTransaction(pool, async (c) => {
        await prepared(
          c,
          'events.lock-workspaces',
          `SELECT pg_advisory_xact_lock(${WORKSPACE_LOCK}, w) FROM (SELECT w FROM unnest($1::int[]) AS w ORDER BY w) AS ordered`,
          [workspaces],
        );
        // The events, and their deliveries to the workspace's active webhooks whose events and queues select them.
        const rows = await prepared<{ id: string }>(
          c,
          'events.record',
          `WITH recorded AS (
             INSERT INTO events (id, workspace_id, type, queue_id, audience, occurred_at, recorded_at, payload)
             SELECT e.id, e.workspace_id, e.type, e.queue_id, e.audience::event_audience, e.occurred_at, clock_timestamp(), e.payload
               FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::text[])
                    WITH ORDINALITY AS e(id, workspace_id, type, queue_id, audience, occurred_at, payload, n)
              ORDER BY e.n
             ON CONFLICT (id) DO NOTHING
             RETURNING seq, id, workspace_id, type, queue_id, payload
           ), queued AS (
             INSERT INTO deliveries (webhook_id, event_id, event_type, payload, status, next_attempt_at, created_at)
             SELECT w.id, r.id, r.type, r.payload, 'pending', clock_timestamp(), clock_timestamp()
               FROM recorded r
               JOIN webhooks w ON w.workspace_id = r.workspace_id AND w.active
              WHERE (cardinality(w.queue_ids) = 0 OR r.queue_id = ANY(w.queue_ids))
                AND EXISTS (SELECT 1 FROM unnest(w.events) AS p WHERE p = r.type OR (right(p, 1) = '*' AND starts_with(r.type, left(p, -1))))
              ORDER BY r.seq, w.id
             ON CONFLICT (webhook_id, event_id) DO NOTHING
           )
           SELECT id FROM recorded`,
          [
            events.map((e) => e.id),
            events.map((e) => e.workspaceId),
            events.map((e) => e.type),
            events.map((e) => e.queueId),
            events.map((e) => e.audience),
            events.map((e) => e.occurredAt),
            events.map((e) => e.payload),
          ],
        );
        return new Set(rows.map((r) => r.id));
      });
    },

    async page({ workspaceId, after, types, readable, limit, scanMax }) {
      // One statement, so the page, what was looked at and the horizon are of one snapshot.
      const rows = await prepared<{ seq: string | null; type: string | null; payload: string | null; last: string | null; scanned: number | null; through: string | null }>(
        pool,
        'events.page',
        `WITH scanned AS (
           SELECT e.seq, e.type, e.queue_id, e.audience, e.payload
             FROM events e
            WHERE e.workspace_id = $1
              AND e.seq > greatest($2::bigint, coalesce((SELECT through_seq FROM pruned_horizons WHERE workspace_id = $1), 0))
            ORDER BY e.seq
            LIMIT $3
         ), shown AS (
           SELECT seq, type, payload
             FROM scanned
            WHERE ($4::text[] IS NULL OR type = ANY($4::text[]))
              AND ($5::boolean
                   OR audience = 'workspace'
                   OR (audience = 'queue_readers' AND queue_id = ANY($6::int[]))
                   OR (audience = 'queue_admins' AND queue_id = ANY($7::int[])))
            ORDER BY seq
            LIMIT $8
         )
         SELECT seq::text, type, payload, NULL::text AS last, NULL::int AS scanned, NULL::text AS through FROM shown
         UNION ALL
         SELECT NULL, NULL, NULL, (SELECT max(seq) FROM scanned)::text, (SELECT count(*) FROM scanned)::int,
                coalesce((SELECT through_seq FROM pruned_horizons WHERE workspace_id = $1), 0)::text`,
        [
          workspaceId,
          after.toString(),
          scanMax,
          types,
          readable.all,
          readable.all ? [] : readable.readQueueIds,
          readable.all ? [] : readable.adminQueueIds,
          limit,
        ],
      );
      const summary = rows.find((r) => r.seq === null)!;
      return {
        items: rows.filter((r) => r.seq !== null).map((r) => ({ position: BigInt(r.seq!), type: r.type as PublicEventType, payload: r.payload! })).sort((a, b) => (a.position < b.position ? -1 : 1)),
        lastScanned: summary.last === null ? null : BigInt(summary.last),
        scanned: summary.scanned ?? 0,
        prunedThrough: BigInt(summary.through ?? '0'),
      };
    },

    async prune(before, batch) {
      // The horizon moves in the statement that deletes: no moment where events are gone and a cursor before them still passes.
      const rows = await prepared<{ count: number }>(
        pool,
        'events.prune',
        `WITH gone AS (
           DELETE FROM events
            WHERE seq IN (SELECT seq FROM events WHERE recorded_at < $1 ORDER BY recorded_at LIMIT $2)
           RETURNING workspace_id, seq
         ), moved AS (
           INSERT INTO pruned_horizons (workspace_id, through_seq)
           SELECT workspace_id, max(seq) FROM gone GROUP BY workspace_id
           ON CONFLICT (workspace_id) DO UPDATE SET through_seq = greatest(pruned_horizons.through_seq, EXCLUDED.through_seq)
         )
         SELECT count(*)::int AS count FROM gone`,
        [before, batch],
      );
      return rows[0]!.count;
    },

    async newest(workspaceIds) {
      // One backward step of the (workspace_id, seq) index per workspace, not a scan.
      const rows = await prepared<{ workspace_id: number; newest: string }>(
        pool,
        'events.newest',
        `SELECT w AS workspace_id,
                coalesce((SELECT max(seq) FROM events WHERE workspace_id = w),
                         (SELECT through_seq FROM pruned_horizons WHERE workspace_id = w), 0)::text AS newest
           FROM unnest($1::int[]) AS w`,
        [workspaceIds],
      );
      return new Map(rows.map((r) => [r.workspace_id, BigInt(r.newest)]));
    },

    async oldestRecordedAt() {
      const rows = await prepared<{ at: Date | null }>(pool, 'events.oldest', 'SELECT min(recorded_at) AS at FROM events', []);
      return rows[0]?.at ?? null;
    },
  };
}
