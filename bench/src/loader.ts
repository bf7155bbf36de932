/**
 * The load generator, always run in its own process (so its CPU is not the
 * measured server's). Reads one job as JSON from argv[2], prints one JSON result.
 *   kind "throughput": autocannon for a fixed time (optionally at a fixed rate);
 *   kind "latency": a closed loop of `connections` keep-alive clients recording
 *   every request's time, for exact percentiles.
 * Both may rotate over `keys` (the path's {key}) and keep each issue's version for
 * versioned PATCHes (body {"title": "... {version}", "version": <last seen>}).
 * A service called directly needs a ticket per request (`ticket`): made here, as the
 * gateway makes it, for the request's own method, path and body.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';
import { issueTicket, PRINCIPAL_HEADER, type TicketKeys, type UserPrincipal } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys, type Signer } from '@tracker/signing';
import { answerTally, type AnswerCheck } from './checks';

export interface LoadJob {
  kind: 'throughput' | 'latency';
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** A fixed body, or one chosen per request by `bodies` (rotating). */
  body?: string;
  bodies?: string[];
  /** `bodies` read from these files: bodies too large for the command line (B9). */
  bodyFiles?: string[];
  /** Issue keys to rotate over: the URL's "{key}" is replaced. */
  keys?: string[];
  /** Versioned PATCH: the current version of each key (same order as keys). */
  versions?: number[];
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections (throughput only). */
  overallRate?: number;
  timeoutSeconds?: number;
  /** Checks every answer's status and body (see checks.ts); failures are counted in `failedChecks`. */
  check?: AnswerCheck;
  /**
   * A service called directly: every request carries its own ticket for `user`, signed
   * with the gateway's development key (the bench runs the services with development
   * keys), since a ticket is good for one request only. Costs the load generator one
   * Ed25519 signature per request, as it costs the gateway on the way through it.
   */
  ticket?: { audience: Signer; user: UserPrincipal };
  /** Every request carries a new `Idempotency-Key` (a UUID), as the typed client's POSTs do. */
  idempotencyKeys?: boolean;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  p50: number;
  p95: number | null;
  p97_5: number;
  p99: number;
  statusCodes: Record<string, number>;
  /** Transport errors and timeouts (no answer at all). */
  errors: number;
  timeouts: number;
  /** Answers that failed `check` (status or body), and the first one's reason; 0 without a check. */
  failedChecks: number;
  firstFailure?: string;
  /**
   * This process's CPU ms before the load began (tsx compiling it, its imports): about half
   * a second, nothing beside 10,000s of requests, a millisecond or more a request beside a
   * few hundred sign-ins (B10 leaves it out).
   */
  startupCpuMs?: number;
}

/**
 * Rotation over the keys (and bodies): starting at `first`, every `step`-th key. Versions
 * are remembered per key from each answer (200: the issue; 409: the problem's current
 * version), so a versioned PATCH sends the version last seen.
 */
export function rotation(job: LoadJob, first: number, step: number) {
  const keys = job.keys ?? [];
  const versions = new Map<string, number>(keys.map((k, i) => [k, job.versions?.[i] ?? 1]));
  let i = first;
  let j = first;
  return {
    next(): { path: string; body?: string; key: string } {
      const url = new URL(job.url);
      let path = url.pathname + url.search;
      let key = '';
      if (keys.length) {
        key = keys[i % keys.length]!;
        i += step;
        // URL() has percent-encoded the placeholder's braces.
        path = path.replace('%7Bkey%7D', encodeURIComponent(key));
      }
      let body = job.body;
      if (job.bodies?.length) body = job.bodies[j++ % job.bodies.length];
      // `"{version}"` becomes the number; `{version}` inside a string (a title) its digits, so
      // that every PATCH changes the issue (one that changes nothing writes nothing).
      if (body && job.versions && key) body = body.replaceAll('"{version}"', String(versions.get(key))).replaceAll('{version}', String(versions.get(key)));
      return { path, body, key };
    },
    answered(key: string, status: number, text: string) {
      if (!job.versions || !key) return;
      if (status === 200 || status === 409) {
        try {
          const v = JSON.parse(text).version;
          if (typeof v === 'number') versions.set(key, v);
        } catch {
          // not JSON: keep the old version
        }
      }
    },
  };
}

let gatewayKeys: TicketKeys | undefined;

/** The ticket header for one request of `job`, or none. */
function ticketHeaders(job: LoadJob, method: string, path: string, body: string | undefined): Record<string, string> {
  if (!job.ticket) return {};
  // Tagged as the gateway tags them (principal.ts), with the gateway's development keys.
  gatewayKeys ??= { key: devSigningKey('gateway'), trusted: parseTrustedKeys(devTrustedKeysText()) };
  return { [PRINCIPAL_HEADER]: issueTicket(gatewayKeys, { audience: job.ticket.audience, method, path, body: body === undefined ? undefined : Buffer.from(body), user: job.ticket.user }) };
}

async function throughput(job: LoadJob): Promise<LoadResult> {
  const url = new URL(job.url);
  // One rotation for all connections. autocannon gives each request a fresh context
  // (with one request definition it resets the context every time), so the key travels
  // in it from setupRequest to onResponse; with pipelining 1 that is the answered one.
  const shared = rotation(job, 0, 1);
  const dynamic = Boolean(job.keys?.length || job.bodies?.length || job.ticket || job.idempotencyKeys);
  const checked = answerTally(job.check);
  const result = await autocannon({
    url: url.origin,
    connections: job.connections,
    duration: job.durationSeconds,
    timeout: job.timeoutSeconds ?? 10,
    overallRate: job.overallRate,
    headers: job.headers,
    requests: [
      {
        method: job.method ?? 'GET',
        path: url.pathname + url.search,
        body: job.body,
        ...(dynamic && {
          setupRequest: (req: any, context: any) => {
            const { path, body, key } = shared.next();
            context.key = key;
            const keyed = job.idempotencyKeys ? { 'idempotency-key': randomUUID() } : {};
            return { ...req, path, body, headers: { ...req.headers, ...keyed, ...ticketHeaders(job, job.method ?? 'GET', path, body) } };
          },
        }),
        ...((dynamic || job.check) && {
          onResponse: (status: number, body: string, context: any) => {
            if (dynamic) shared.answered(context.key, status, body);
            checked.answered(status, body);
          },
        }),
      },
    ],
  } as autocannon.Options);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries((result as any).statusCodeStats ?? {})) statusCodes[code] = (stats as { count: number }).count;
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p95: null,
    p97_5: result.latency.p97_5,
    p99: result.latency.p99,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    failedChecks: checked.failed,
    firstFailure: checked.first,
  };
}

async function latency(job: LoadJob): Promise<LoadResult> {
  const url = new URL(job.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
  const samples: number[] = [];
  const statusCodes: Record<string, number> = {};
  const checked = answerTally(job.check);
  let errors = 0;
  const until = Date.now() + job.durationSeconds * 1000;
  const once = (path: string, body: string | undefined) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: job.method ?? 'GET',
          agent,
          headers: { ...job.headers, ...ticketHeaders(job, job.method ?? 'GET', path, body), ...(body && { 'content-length': Buffer.byteLength(body) }) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.setTimeout((job.timeoutSeconds ?? 10) * 1000, () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: job.connections }, async (_, slot) => {
      const rot = rotation(job, slot, job.connections);
      while (Date.now() < until) {
        const { path, body, key } = rot.next();
        const started = performance.now();
        try {
          const { status, text } = await once(path, body);
          samples.push(performance.now() - started);
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          rot.answered(key, status, text);
          checked.answered(status, text);
        } catch {
          errors++;
        }
      }
    }),
  );
  agent.destroy();
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.max(0, Math.ceil((p / 100) * samples.length) - 1))] ?? NaN;
  return {
    requestsPerSecond: samples.length / job.durationSeconds,
    total: samples.length,
    p50: pct(50),
    p95: pct(95),
    p97_5: pct(97.5),
    p99: pct(99),
    statusCodes,
    errors,
    timeouts: 0,
    failedChecks: checked.failed,
    firstFailure: checked.first,
  };
}

async function main() {
  const startup = process.cpuUsage();
  const job = JSON.parse(process.argv[2]!) as LoadJob;
  if (job.bodyFiles) job.bodies = job.bodyFiles.map((file) => fs.readFileSync(file, 'utf8'));
  const result = job.kind === 'latency' ? await latency(job) : await throughput(job);
  process.stdout.write(`${JSON.stringify({ ...result, startupCpuMs: (startup.user + startup.system) / 1000 })}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
