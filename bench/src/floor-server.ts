/**
 * The floor of a read, measured beside B1: what the kernel, Node's HTTP stack, the
 * drivers, Redis and Postgres cost for the round trips a GET /issues/{key} makes, with
 * none of the project's request handling. Own processes, like the services:
 *
 * - `service <port> <body file> <database url> <schema> <redis url> <workspace id> <key>`:
 *   per request one Redis `SET … PX … NX` (the issues service marks each ticket seen),
 *   the issues service's own statement for the issue (its repository, prepared), then the
 *   bytes the service answered for it.
 * - `proxy <port> <upstream url> <redis url>`: per request one Redis pipeline of three
 *   commands (the gateway's: cached principal, freshness key, rate-limit counter), then
 *   the request forwarded over a keep-alive agent and the answer piped back.
 * - `statistics <port> <database url> <schema> <redis url> <workspace id> <user id>`: the
 *   floor of B5, per request the body read and parsed, one Redis `SET … PX … NX`, then
 *   the figures of the body's filters by the statistics service's own repository (one
 *   statement) and their JSON.
 * - `search <port> <database url> <schema> <redis url> <workspace id> <user id>`: the floor
 *   of B4, per request the body read and parsed, one Redis `SET … PX … NX`, then the
 *   search of the body's filters by the issues service's own repository (one statement;
 *   its queues, else every queue: the bench's caller is a workspace admin) and the rows' JSON.
 * - `create <port> <database url> <schema> <redis url> <workspace id> <user id>`: the floor
 *   of B3's creation, per request the body read and parsed, one Redis `SET … PX … NX`, the
 *   queue and its first status read, then the creation's transaction with the issues
 *   service's own statements (its repository: the counter and the status lock, the end
 *   position, the issue with its history) and an outbox row written as already published
 *   (as pgbench's script writes it: no event pipeline behind the floor), and the new
 *   issue's row as JSON.
 * - `express-service …` and `express-proxy …`, with `service`'s and `proxy`'s arguments: the
 *   same round trips through the frameworks the services are built on, with none of the
 *   project's layers: an express app with one route (served as the services serve theirs,
 *   its requests born with express's prototypes), and an express app whose one layer makes
 *   the Redis pipeline and hands the request to http-proxy-middleware set up as the
 *   gateway's. What of a service's cost over the node:http floor is its frameworks'.
 * - `kit-service …`, with `service`'s arguments: the express service inside the layers
 *   every service has (libs/kit createServiceApp: request id, access log and metrics, the
 *   ticket checked and accepted once in Redis, the body layers), its route only reading
 *   the issue and sending the bytes: what of a service's cost over the frameworks' floor
 *   is the kit's, and the rest its route's own (rights, rows to JSON, the ETag).
 * - `mcp <port> <answer file>`: the MCP SDK alone, as its stateless example runs it (a
 *   Server and a Streamable HTTP transport with JSON answers per request, the validator
 *   shared as the agent shares it), answering every tool call with the issue in the file
 *   as the agent's get_issue does (structuredContent and its JSON text), with no call
 *   behind it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import express from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { toSearchCriteria, type Filters } from '@tracker/contracts';
import { createRedis, redisSeenTickets } from '@tracker/authz';
import { createLogger, createMetrics, createServiceApp, inTransaction, sendJsonText, serve, writeAtCommit } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { formatIssueKey, issueReadsRepository, issuesRepository, searchRepository } from '@tracker/issues/statements';
import { replicaReadsRepository } from '@tracker/statistics/statements';

const [role, port, ...args] = process.argv.slice(2);

function listen(server: http.Server): void {
  server.keepAliveTimeout = 65_000;
  server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function failed(res: http.ServerResponse, error: unknown): void {
  res.writeHead(500, { 'content-type': 'text/plain' });
  res.end(String(error));
}

/** An express app served as the services serve theirs (libs/kit `serve`); it says `listening` on stdout. */
function listenExpress(app: express.Express): void {
  app.disable('x-powered-by');
  app.set('etag', false);
  void serve(app, { port: Number(port), host: '127.0.0.1', logger: createLogger('floor', 'warn'), graceMs: 1000, handleSignals: true }).then(() => process.stdout.write('listening\n'));
}

/** A pool on one service's schema, as the services open theirs. */
const schemaPool = (databaseUrl: string, schema: string) => new Pool({ connectionString: databaseUrl, max: 10, options: `-c search_path="${schema}"`, pipeline: true });

/** What a service does to accept a ticket once: one Redis `SET … PX … NX`. */
const markSeen = (redis: Redis) => redis.set(`floor:seen:${randomUUID()}`, '1', 'PX', 30_000, 'NX');

/** What the gateway does to authenticate a request: one Redis pipeline (cached principal, freshness key, rate-limit counter). */
const lookUpCaller = (redis: Redis) => redis.pipeline().get('floor:principal').exists('floor:fresh').incr('floor:rate').exec();

/**
 * B1's floors' work for one GET: the ticket marked seen, then the issue read by the issues
 * service's own repository. With `ticketsSeenBy` the kit's layers mark it (kit-service).
 */
function issueReader(args: string[], ticketsSeenBy: 'floor' | 'kit' = 'floor'): { body: Buffer; read: () => Promise<void> } {
  const [file, databaseUrl, schema, redisUrl, workspaceId, key] = args;
  const reads = issueReadsRepository(schemaPool(databaseUrl!, schema!));
  const redis = ticketsSeenBy === 'floor' ? new Redis(redisUrl!) : null;
  return {
    body: fs.readFileSync(file!),
    read: async () => {
      if (redis) await markSeen(redis);
      if (!(await reads.findWithAttachments(Number(workspaceId), key!, null))) throw new Error(`no issue ${key}`);
    },
  };
}

async function readJson<T>(req: http.IncomingMessage): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

function answerJson(res: http.ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

const callerOf = (workspaceId: string, userId: string) => ({ workspaceId: Number(workspaceId), userId: Number(userId) });

/** B4's and B5's floors: per request the filters read and parsed, one Redis `SET … NX`, then `answer`'s JSON. */
function answerFilters(redisUrl: string, answer: (filters: Filters) => Promise<unknown>): void {
  const redis = new Redis(redisUrl);
  listen(
    http.createServer((req, res) => {
      void (async () => {
        const filters = await readJson<Filters>(req);
        await markSeen(redis);
        answerJson(res, 200, await answer(filters));
      })().catch((error: unknown) => failed(res, error));
    }),
  );
}

if (role === 'service') {
  const { body, read } = issueReader(args);
  listen(
    http.createServer((req, res) => {
      req.resume();
      void (async () => {
        await read();
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      })().catch((error: unknown) => failed(res, error));
    }),
  );
} else if (role === 'express-service') {
  const { body, read } = issueReader(args);
  const app = express();
  app.get('/api/v1/issues/:key', async (_req, res) => {
    await read();
    res.setHeader('content-type', 'application/json');
    res.send(body);
  });
  listenExpress(app);
} else if (role === 'kit-service') {
  const { body, read } = issueReader(args, 'kit');
  const logger = createLogger('issues', 'warn');
  // The replay check on a client opened as the services open theirs (command timeout, no offline queue).
  const seenTicketsRedis = createRedis(args[3]!, logger);
  const app = createServiceApp({
    name: 'issues',
    keys: { key: devSigningKey('issues'), trusted: parseTrustedKeys(devTrustedKeysText()) },
    seenTickets: redisSeenTickets(seenTicketsRedis, logger),
    logger,
    metrics: createMetrics('issues'),
    routes: (router) => {
      router.get('/api/v1/issues/:key', async (_req, res) => {
        await read();
        sendJsonText(res, body);
      });
    },
  });
  void serve(app, { port: Number(port), host: '127.0.0.1', logger, graceMs: 1000, handleSignals: true }).then(() => process.stdout.write('listening\n'));
} else if (role === 'express-proxy') {
  const [upstream, redisUrl] = args;
  const redis = new Redis(redisUrl!);
  const app = express();
  app.use(async (_req, _res, next) => {
    await lookUpCaller(redis);
    next();
  });
  app.use(
    createProxyMiddleware({
      target: upstream,
      agent: new http.Agent({ keepAlive: true, maxSockets: 1024, timeout: 30_000 }),
      xfwd: true,
      proxyTimeout: 15_000,
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
      on: {
        // As the gateway's: an upstream that fails is answered, never left hanging.
        error: (error, _req, res) => {
          if (!('setHeader' in res)) return;
          if (res.headersSent) res.destroy();
          else failed(res, error);
        },
      },
    }),
  );
  listenExpress(app);
} else if (role === 'statistics') {
  const [databaseUrl, schema, redisUrl, workspaceId, userId] = args;
  const replica = replicaReadsRepository(schemaPool(databaseUrl!, schema!));
  answerFilters(redisUrl!, (filters) => replica.figures(toSearchCriteria(filters, callerOf(workspaceId!, userId!), filters.queue_ids ?? null, new Date())));
} else if (role === 'search') {
  const [databaseUrl, schema, redisUrl, workspaceId, userId] = args;
  const search = searchRepository(schemaPool(databaseUrl!, schema!));
  answerFilters(redisUrl!, (filters) => search.search(toSearchCriteria(filters, callerOf(workspaceId!, userId!), filters.queue_ids ?? null, new Date())));
} else if (role === 'create') {
  const [databaseUrl, schema, redisUrl, workspaceId, userId] = args;
  const pool = schemaPool(databaseUrl!, schema!);
  const redis = new Redis(redisUrl!);
  const [ws, user] = [Number(workspaceId), Number(userId)];
  const create = async (input: { queue_id: number; title: string; description: string }) => {
    const queue = (
      await pool.query<{ key: string; status_id: number }>({
        name: 'floor.queue',
        text: `SELECT q.key, (SELECT min(id) FROM statuses WHERE queue_id = q.id) AS status_id FROM queues q WHERE q.workspace_id = $1 AND q.id = $2`,
        values: [ws, input.queue_id],
      })
    ).rows[0]!;
    // The service's transaction (libs/kit inTransaction): BEGIN sent with the counter, the outbox row with the COMMIT.
    return inTransaction(pool, async (client) => {
      const issues = issuesRepository(client);
      const { number, queueKey } = await issues.nextNumberLockingStatus(input.queue_id, queue.status_id);
      const issue = await issues.create({
        workspaceId: ws, queueId: input.queue_id, number, key: formatIssueKey(queueKey, number), title: input.title, description: input.description,
        statusId: queue.status_id, assigneeId: null, parentId: null, priority: 'normal', type: 'task', labels: [],
        dueDate: null, estimateMinutes: 0, createdBy: user, at: new Date(),
      });
      await writeAtCommit(client, {
        name: 'floor.outbox',
        text: `INSERT INTO outbox_events (event_id, type, routing_key, workspace_id, aggregate_type, aggregate_id, aggregate_revision, payload, published_at)
               VALUES (gen_random_uuid(), 'issue.created', 'tracker.issue.created', $1, 'issue', $2, 1, $3, now())`,
        values: [ws, issue.id, JSON.stringify({ bench: true, issue })],
      });
      return issue;
    });
  };
  listen(
    http.createServer((req, res) => {
      void (async () => {
        const input = await readJson<{ queue_id: number; title: string; description: string }>(req);
        await markSeen(redis);
        answerJson(res, 201, await create(input));
      })().catch((error: unknown) => failed(res, error));
    }),
  );
} else if (role === 'proxy') {
  const [upstream, redisUrl] = args;
  const target = new URL(upstream!);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const redis = new Redis(redisUrl!);
  listen(
    http.createServer((req, res) => {
      void (async () => {
        await lookUpCaller(redis);
        const forwarded = http.request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forwarded.on('error', (error) => failed(res, error));
        req.pipe(forwarded);
      })().catch((error: unknown) => failed(res, error));
    }),
  );
} else if (role === 'mcp') {
  const [file] = args;
  const issue = JSON.parse(fs.readFileSync(file!, 'utf8')) as Record<string, unknown>;
  const answer = { content: [{ type: 'text' as const, text: JSON.stringify(issue) }], structuredContent: issue };
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  listen(
    http.createServer((req, res) => {
      void (async () => {
        const message = await readJson<unknown>(req);
        const server = new Server({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator });
        server.setRequestHandler(CallToolRequestSchema, () => answer);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => void server.close());
        await server.connect(transport);
        await transport.handleRequest(req, res, message);
      })().catch((error: unknown) => failed(res, error));
    }),
  );
} else {
  throw new Error(`floor-server: unknown role ${role}`);
}
