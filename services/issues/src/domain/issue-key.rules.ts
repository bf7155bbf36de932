/** Issue keys: `<QUEUE KEY>-<n>`, the queue part matched case-insensitively. */

const MAX_INT4 = 2_147_483_647;
const KEY = /^([A-Za-z][A-Za-z0-9_]{1,11})-([1-9][0-9]{0,9})$/;

export interface ParsedKey {
  /** Upper-case, as queue keys are stored. */
  queueKey: string;
  number: number;
  /** The canonical spelling, e.g. `OPS-12`. */
  key: string;
}

/** A well-formed key, or null (the caller answers 404: a malformed key names no issue). */
export function parseIssueKey(raw: string): ParsedKey | null {
  const match = KEY.exec(raw);
  if (!match) return null;
  const number = Number(match[2]);
  if (number > MAX_INT4) return null;
  const queueKey = match[1]!.toUpperCase();
  return { queueKey, number, key: formatIssueKey(queueKey, number) };
}

export const formatIssueKey = (queueKey: string, number: number) => `${queueKey}-${number}`;
