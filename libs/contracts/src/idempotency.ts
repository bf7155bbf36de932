import { z } from 'zod';

/**
 * Safe retries of POST: a request carrying `Idempotency-Key` is carried out once per key,
 * caller and workspace; a repeat with the same key and the same request within
 * IDEMPOTENCY.replayHours gets the first answer again, marked by IDEMPOTENT_REPLAYED_HEADER.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY = { maxKeyLength: 255, replayHours: 24 } as const;

/** 1 to 255 visible ASCII characters (a UUID is the usual choice). */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY.maxKeyLength)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters (no spaces)')
  .meta({
    description: `A key the client chooses for this one write (a UUID, say), 1 to ${IDEMPOTENCY.maxKeyLength} visible ASCII characters. Retrying with the same key and the same request within ${IDEMPOTENCY.replayHours} hours answers the first answer again instead of writing twice.`,
    examples: ['5f0c6f7e-9d2a-4c1b-8d53-2f4f0b6a9e11'],
  });
