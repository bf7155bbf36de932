import { parseIssueKey } from './issue-key.rules';

/** At most this many distinct keys of one text are resolved; the rest are ignored. */
export const MAX_MENTIONS_PER_TEXT = 200;

// A key not glued to ASCII letters, digits or `_` on either side: "see OPS-12." mentions OPS-12,
// "9OPS-12", "_OPS-12" and "OPS-12b" do not.
const MENTION = /(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_]{1,11}-[0-9]+(?![A-Za-z0-9_])/g;

/** Canonical keys mentioned in a text, first occurrence first, without the issue's own key. */
export function extractMentions(text: string, ownKey?: string): string[] {
  const keys = new Set<string>();
  for (const [raw] of text.matchAll(MENTION)) {
    const parsed = parseIssueKey(raw);
    if (!parsed || parsed.key === ownKey) continue;
    keys.add(parsed.key);
    if (keys.size === MAX_MENTIONS_PER_TEXT) break;
  }
  return [...keys];
}
