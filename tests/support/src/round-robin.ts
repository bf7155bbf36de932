import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';

/**
 * An HTTP round-robin on 127.0.0.1 in front of the replicas of one service, as a
 * Kubernetes Service spreads requests over pods. It picks the next replica for every
 * request, not for every connection: callers keep their connections alive, and a TCP
 * round-robin would pin each of them to one replica. Here consecutive requests meet
 * different replicas, the hard case for anything a replica keeps to itself.
 *
 * Everything passes through unchanged and streamed, Host included: method, path,
 * headers, body; status, headers, body. Only Connection and Keep-Alive are not passed
 * on: they describe each side's own connection, and the relay keeps its own.
 */
export interface RoundRobin {
  /** The round-robin's origin, e.g. http://127.0.0.1:54321: what callers use as the service's URL. */
  url: string;
  targets: string[];
  /** Requests sent to each target so far, in the order of `targets`. */
  sent: number[];
  close: () => Promise<void>;
}

const CONNECTION_HEADERS = new Set(['connection', 'keep-alive']);

/** The same keep-alive as the services (libs/kit server.ts): it must outlive the callers' idle sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function startRoundRobin(targets: string[]): Promise<RoundRobin> {
  const agent = new http.Agent({ keepAlive: true });
  const sent = targets.map(() => 0);
  let next = 0;
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (req, res) => {
    const index = next;
    next = (next + 1) % targets.length;
    sent[index]! += 1;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !CONNECTION_HEADERS.has(name)));
    // Each piece of the body goes on only once what the replica sent meanwhile has been
    // read (setImmediate runs after the poll for I/O). A replica that answers early and
    // closes (413 on a body too large) then has its answer passed on, as a caller
    // connected to it directly gets it; writing at once would fail first (EPIPE) and lose it.
    const readFirst = new Transform({ transform: (chunk, _encoding, done) => void setImmediate(() => done(null, chunk)) });
    let answer: http.IncomingMessage | undefined;
    const upstream = http.request(new URL(req.url!, targets[index]), { method: req.method, headers, agent }, (response) => {
      answer = response;
      res.writeHead(response.statusCode!, response.statusMessage, withoutConnectionHeaders(response.rawHeaders));
      response.pipe(res);
      response.on('end', () => {
        if (upstream.writableFinished) return;
        // Answered before the whole body (413): the replica does not want the rest. It is
        // read off the caller's connection and dropped, so that connection takes the next
        // request, and the replica's connection, left in the middle of a body, is closed.
        readFirst.unpipe(upstream);
        readFirst.resume();
        upstream.destroy();
      });
      // Cut off mid-answer: so is the caller, as it would be from the replica itself.
      response.on('close', () => {
        if (!response.complete) res.destroy();
      });
    });
    upstream.on('error', () => {
      if (answer?.complete) return;
      // The replica could not be reached (down, restarting) or broke off. A Kubernetes
      // Service forwards TCP and never answers itself: its caller then sees the
      // connection refused or reset. So the caller's connection is dropped, never
      // turned into a made-up 502 or 500: the caller handles it as it would in a cluster.
      res.destroy();
    });
    // The caller gone before its answer is complete: so is the forwarded request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on('error', () => upstream.destroy());
    req.pipe(readFirst).pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    sent,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** rawHeaders (name, value, name, value, …) without the connection's own headers. */
function withoutConnectionHeaders(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!CONNECTION_HEADERS.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}
