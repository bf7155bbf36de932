/**
 * B12's integration side, each part in its own process (so its work is not the bench's, and
 * the bench's is not its: the bench's own loop is busy making the writes). Run as
 * `tsx src/integration.ts <mode> ...`; prints "listening" or "following" when ready, then
 * one JSON line per thing seen, stamped with the wall clock in ms (fractional; every process
 * of the machine reads the same clock):
 *
 * - `receive <port>`: the fast receiver, node:http on 127.0.0.1 answering 204 as soon as a
 *   POST's body has arrived. One line per POST: `{at, path, bytes, match}` (`match`: the
 *   event the body carries, see `eventMatch`).
 * - `follow <events url> <token> <cursor> <interval ms>`: a feed follower, as an integration
 *   keeps up with `GET /api/v1/events`: asks for what follows its cursor (limit 500), takes
 *   `next_cursor`, asks again at once when the page was full, else after the interval. One
 *   line per event `{at, match}` (`at`: when the page that held it was answered) and one per
 *   request `{poll: ms}` (`{refused: status}` for an answer other than 200, asked again).
 * - `post <url> <count> <concurrency> <body bytes>`: the deliveries' floor, a bare node:http
 *   POST loop: `count` POSTs of a JSON body of that size, `concurrency` at a time, each on a
 *   new connection as the webhook sender makes them (`agent: false`). Prints `{done, ms}`.
 */
import http from 'node:http';
import { eventMatch } from './integration-figures';

const now = () => performance.timeOrigin + performance.now();
const emit = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

function receive(port: number): void {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      res.writeHead(204).end();
      const body = Buffer.concat(chunks);
      let match: string | null = null;
      try {
        match = eventMatch(JSON.parse(body.toString('utf8')));
      } catch {
        // not JSON (the floor's bodies are, but carry no event): no match
      }
      emit({ at, path: req.url, bytes: body.length, match });
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
}

async function follow(eventsUrl: string, token: string, cursor: string, intervalMs: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (url: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('the feed did not answer within 10 s')));
      req.on('error', reject);
    });
  let first = true;
  for (;;) {
    const started = now();
    const { status, text } = await get(`${eventsUrl}?limit=500&after=${encodeURIComponent(cursor)}`);
    const at = now();
    if (status !== 200) {
      // Refused (a 429 when the machine is too slow for the writes, say): reported, asked again.
      emit({ refused: status, text: text.slice(0, 200) });
      await new Promise((r) => setTimeout(r, intervalMs));
      continue;
    }
    const page = JSON.parse(text) as { items: unknown[]; next_cursor: string };
    emit({ poll: at - started });
    for (const item of page.items) emit({ at, match: eventMatch(item) });
    cursor = page.next_cursor;
    if (first) process.stdout.write('following\n');
    first = false;
    if (page.items.length < 500) await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function post(url: string, count: number, concurrency: number, bytes: number): Promise<void> {
  // A JSON body of exactly `bytes` bytes (the deliveries' mean size).
  const body = JSON.stringify({ type: 'floor', data: 'x'.repeat(Math.max(0, bytes - 28)) });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode && res.statusCode < 300 ? resolve() : reject(new Error(`${url} answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  let left = count;
  const started = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--;
        await once();
      }
    }),
  );
  emit({ done: count, ms: now() - started });
}

if (require.main === module) {
  const [mode, ...rest] = process.argv.slice(2);
  const ran =
    mode === 'receive'
      ? Promise.resolve(receive(Number(rest[0])))
      : mode === 'follow'
        ? follow(rest[0]!, rest[1]!, rest[2]!, Number(rest[3]))
        : mode === 'post'
          ? post(rest[0]!, Number(rest[1]), Number(rest[2]), Number(rest[3]))
          : Promise.reject(new Error(`integration.ts: no mode ${mode} (receive, follow, post)`));
  ran.catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
