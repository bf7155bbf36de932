import { toOutboxRow, type EventEnvelope } from '@tracker/events';
import type { Tx } from './prisma';

/** Writes an integration event in the caller's transaction (the transactional outbox). */
export async function writeOutbox(tx: Tx, event: EventEnvelope): Promise<void> {
  const row = toOutboxRow(event);
  await tx.outboxEvent.create({ data: { ...row, payload: row.payload as object } });
}
