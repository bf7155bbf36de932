import { Writable } from 'node:stream';

/** One log line a service wrote, parsed (pino's numeric levels: 30 info, 40 warn, …). */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/**
 * Where a service under test writes its JSON log lines (give `destination` to pino, at
 * debug level) for the test to read them, parsed, in `logs`: what a consumer handled,
 * refused or retried is said only there.
 */
export function logSink(): { logs: LogLine[]; destination: Writable } {
  const logs: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  return { logs, destination };
}

/**
 * Resolves once every event id has been handled `times` times, `handledCount` saying how
 * often one was (from the logs); fails after `timeoutMs` saying how many are left.
 */
export async function untilHandled(eventIds: string[], handledCount: (eventId: string) => number, times: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!eventIds.every((id) => handledCount(id) >= times)) {
    if (Date.now() > deadline) throw new Error(`events not handled ${times}x within ${timeoutMs} ms: ${eventIds.filter((id) => handledCount(id) < times).length} left`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
