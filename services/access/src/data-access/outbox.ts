import { appendOutboxEvents, type EventEnvelope } from '@tracker/events';
import type { Tx } from './prisma';

/**
 * Writes an integration event in the caller's transaction (the transactional outbox),
 * with the one outbox insert of libs/events, run on this service's Prisma transaction.
 */
export async function writeOutbox(tx: Tx, event: EventEnvelope): Promise<void> {
  await appendOutboxEvents({ query: ({ text, values }) => tx.$executeRawUnsafe(text, ...values) }, [event]);
}
