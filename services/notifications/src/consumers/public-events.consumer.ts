import type { EventHandler } from '@tracker/events';
import { batching, type Logger } from '@tracker/kit';
import { recordEvents, type RecordDeps, type RecordOutcome } from '../domain/record-events.use-case';

/**
 * Events delivered together (a backlog, a burst of writes) are recorded in one transaction
 * (record-events.use-case.ts); a few such transactions run at once, and the events arriving
 * meanwhile wait for the next. One event alone is recorded at once.
 */
export const RECORD_BATCH = { maxSize: 100, maxInFlight: 3 } as const;

/** What the handler reports of each event it handled (the service counts them: app.ts). */
export type OnRecorded = (event: { type: string; occurredAt: string; outcome: RecordOutcome }) => void;

/**
 * Keeps the public event log: each integration event becomes its public event, recorded
 * once however often it is delivered. A failure throws, so the consumer library retries the
 * delivery and dead-letters it after its last attempt; nothing is acked unrecorded. (Events
 * not proved by their publisher never get here: the consumer library refuses them.)
 */
export function publicEventsHandler(deps: RecordDeps, logger: Logger, onRecorded: OnRecorded = () => undefined): EventHandler {
  const record = batching((events: Parameters<EventHandler>[0][]) => recordEvents(deps, events), RECORD_BATCH);
  return async (event, meta) => {
    const outcome = await record(event);
    onRecorded({ type: event.type, occurredAt: event.occurred_at, outcome });
    const about = { rid: meta.requestId, eventId: event.event_id, type: event.type, attempt: meta.attempt, outcome };
    if (outcome === 'incomplete') logger.warn(about, 'event from a publisher too old to carry what the API answers; not recorded');
    else logger.debug(about, 'event');
  };
}
