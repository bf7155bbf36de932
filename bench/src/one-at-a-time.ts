/** Requests timed one at a time, kinds in turn (B4's search and B5's statistics). */
import http from 'node:http';
import { listsFor } from './rows';

/** How long `request` took, ms. */
export async function msOf(request: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await request();
  return performance.now() - started;
}

/** A copy of `items` in random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * POSTs of `body`, one at a time over one keep-alive socket (node:http), the answer's bytes
 * kept undecoded: the client's own cost stays small beside what it measures, and the same
 * for the API and its floors. An answer other than 200, or none within 60 s, rejects.
 */
export function keepAlivePoster(scenario: string, body: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, headers: Record<string, string>) => () =>
    new Promise<Buffer>((resolve, reject) => {
      const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if (answer.statusCode === 200) resolve(bytes);
          else reject(new Error(`${scenario}: ${url} answered ${answer.statusCode}: ${bytes.toString('utf8', 0, 200)}`));
        });
        answer.on('error', reject);
      });
      request.setTimeout(60_000, () => request.destroy(new Error(`${scenario}: ${url} did not answer within 60 s`)));
      request.on('error', reject);
      request.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/**
 * `kinds` measured one request of each per round, in a new random order each round, one at
 * a time, for `ms` (at least 20 rounds): noise (the OS cache, other processes, the bench's
 * own garbage) hits the API and its ceilings alike, and no kind always follows the same
 * other kind. Each kind's times, ms.
 */
export async function takingTurns<Kind extends string>(kinds: Record<Kind, () => Promise<number>>, ms: number): Promise<Record<Kind, number[]>> {
  const order = Object.keys(kinds) as Kind[];
  const times = listsFor(order);
  const until = Date.now() + ms;
  for (let round = 0; Date.now() < until || round < 20; round++) {
    for (const kind of shuffled(order)) times[kind].push(await kinds[kind]());
  }
  return times;
}

/** A Prisma.Sql as pg takes it: `.text` has the $1.. placeholders (`.sql` has MySQL's `?`). */
export const asPg = (s: unknown) => ({ sql: (s as { text: string }).text, values: (s as { values: unknown[] }).values });
