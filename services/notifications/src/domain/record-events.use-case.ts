import type { EventEnvelope } from '@tracker/events';
import { isDatabaseUnavailable, type ItemResult } from '@tracker/kit';
import type { EventLog } from './ports';
import type { LoggedEvent } from './model';
import { cappedJson } from './payload-cap.rules';
import { publicEventOf } from './public-event.rules';

/**
 * `recorded`: new in the log. `duplicate`: recorded before (a redelivery, a republished
 * outbox row): nothing changes. `expired`: older than the log keeps, never recorded (a
 * redelivery of an event pruned meanwhile must not come back as new). `incomplete`: from
 * a publisher too old to carry what the API answers (public-event.rules.ts).
 */
export type RecordOutcome = 'recorded' | 'duplicate' | 'expired' | 'incomplete';

export interface RecordDeps {
  log: EventLog;
  clock: () => Date;
  retention: { hours: number };
}

/**
 * Records the public events of integration events delivered together, in one transaction,
 * in the order they happened. Idempotent on the event id. If the transaction fails for
 * anything but the database being away, the events are recorded one at a time instead,
 * so that only the failing one is retried (and dead-lettered in the end).
 */
export async function recordEvents(deps: RecordDeps, events: EventEnvelope[]): Promise<ItemResult<RecordOutcome>[]> {
  try {
    return (await recordTogether(deps, events)).map((value) => ({ ok: true, value }));
  } catch (error) {
    if (events.length === 1 || isDatabaseUnavailable(error)) return events.map(() => ({ ok: false, error }));
  }
  const results: ItemResult<RecordOutcome>[] = [];
  for (const event of events) {
    results.push(await recordTogether(deps, [event]).then(([value]) => ({ ok: true as const, value: value! }), (error: unknown) => ({ ok: false as const, error })));
  }
  return results;
}

async function recordTogether(deps: RecordDeps, events: EventEnvelope[]): Promise<RecordOutcome[]> {
  const keptFrom = deps.clock().getTime() - deps.retention.hours * 3_600_000;
  const outcomes: RecordOutcome[] = [];
  const logged: Array<LoggedEvent & { index: number }> = [];
  events.forEach((event, index) => {
    const draft = publicEventOf(event);
    if (!draft) return void (outcomes[index] = 'incomplete');
    if (Date.parse(event.occurred_at) < keptFrom) return void (outcomes[index] = 'expired');
    logged.push({
      index,
      id: draft.event.id,
      workspaceId: draft.event.workspace_id,
      type: draft.event.type,
      queueId: draft.queueId,
      audience: draft.audience,
      occurredAt: new Date(event.occurred_at),
      payload: cappedJson(draft.event),
    });
  });
  // The feed's order is the order recorded: as near the order things happened as a batch allows.
  logged.sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || a.index - b.index);
  const recorded = logged.length > 0 ? await deps.log.record(logged) : new Set<string>();
  const first = new Set<string>();
  for (const event of logged) {
    // The same event twice in one delivery batch is recorded once: the second is a duplicate.
    outcomes[event.index] = recorded.has(event.id) && !first.has(event.id) ? 'recorded' : 'duplicate';
    first.add(event.id);
  }
  return outcomes;
}
