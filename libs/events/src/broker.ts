import type { EventEmitter } from 'node:events';
import { connect, type ChannelModel } from 'amqplib';
import { backoffDelay } from '@tracker/kit';

type LogFn = (obj: Record<string, unknown>, msg?: string) => void;

/** The subset of a pino logger the relay and the consumer use. */
export interface EventsLogger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  debug: LogFn;
}

export interface ReconnectOptions {
  /** First delay after a failed attempt. Default 100 ms. */
  initialDelayMs?: number;
  /** Cap of the exponential backoff. Default 2000 ms. */
  maxDelayMs?: number;
}

/** Dead-letter exchange of an events exchange: `tracker.events` → `tracker.events.dlx`. */
export const deadLetterExchangeOf = (exchange: string) => `${exchange}.dlx`;

/** The wait before reconnecting after `attempt` failures: 100, 200, 400 … up to maxDelayMs, jittered down by at most 25%. */
export function reconnectDelay(attempt: number, options: ReconnectOptions = {}): number {
  return backoffDelay(attempt, { baseMs: options.initialDelayMs ?? 100, maxMs: options.maxDelayMs ?? 2000, jitter: 0.25 });
}

/**
 * Opens a connection whose failures are reported once through onLost and never as an
 * unhandled 'error' event: amqplib emits 'error' on the model when the server closes the
 * connection with an error, and an emitter without listeners would crash the process.
 */
export async function openConnection(url: string, name: string, onLost: (error: Error | undefined) => void): Promise<ChannelModel> {
  const connection = await connect(url, { timeout: 5000, clientProperties: { connection_name: name } });
  let reported = false;
  const lost = (error?: Error) => {
    if (reported) return;
    reported = true;
    onLost(error);
  };
  connection.on('error', (error) => lost(error));
  connection.on('close', (error) => lost(error));
  return connection;
}

/**
 * Closes a channel or connection without throwing, and without hanging: amqplib settles
 * close() only when the broker's CloseOk arrives, so if the socket dies first the promise
 * never settles. The 'close' event or a timeout ends the wait instead.
 */
export function closeQuietly(closable: (EventEmitter & { close(): Promise<void> }) | null | undefined, timeoutMs = 2000): Promise<void> {
  if (!closable) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      closable.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    closable.once('close', done);
    try {
      closable.close().then(done, done);
    } catch {
      done();
    }
  });
}

/** Sleeps that stop() can cut short. */
export class Waker {
  private readonly sleepers = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  wakeUp(): void {
    for (const done of [...this.sleepers]) done();
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
