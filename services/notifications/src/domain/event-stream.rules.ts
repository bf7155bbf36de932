/**
 * The frames of the live stream (GET /api/v1/events/stream), Server-Sent Events as the
 * HTML standard parses them. The web pages parse exactly these, so they are fixed:
 * `retry: <ms>` first, then per event `id: <cursor after it>`, `event: <type>`,
 * `data: <the public event's JSON on one line>` and a blank line; `: keep-alive` comments
 * while nothing happens.
 */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/** How long a client waits before reconnecting, told once at the start of every stream. */
export const RECONNECT_MS = 2000;

export const retryFrame = (ms: number): string => `retry: ${ms}\n\n`;

/**
 * One event. A JSON text has line breaks only as whitespace between tokens (inside strings
 * they are escaped), so dropping them keeps the same JSON on the one `data:` line that a
 * parser reads back whole; the cursor and the type never hold one.
 */
export function eventFrame(cursor: string, type: string, payload: string): string {
  const line = /[\r\n]/.test(payload) ? payload.replace(/[\r\n]+/g, '') : payload;
  return `id: ${cursor}\nevent: ${type}\ndata: ${line}\n\n`;
}
