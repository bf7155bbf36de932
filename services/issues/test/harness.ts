import path from 'node:path';
import { serve, type RunningServer } from '@tracker/kit';
import { type Signer } from '@tracker/signing';
import { createTestSchema, type FakeAccess, type Member, newMember, newWorkspace, signedClient, type SignedReply as Reply, serviceTestEnv, startFakeAccess, type TestSchema, type Workspace } from '@tracker/testing';
import type { QueueRole } from '@tracker/contracts';
import { createIssuesService, type IssuesService } from '../src/app';
import { loadIssuesConfig } from '../src/config';

const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export type { Member, Workspace };
export { problem } from '@tracker/testing';

/** The issues service in this test process, on a random port, in its own schema, with a fake access service. */
export interface IssuesHarness {
  url: string;
  service: IssuesService;
  schema: TestSchema;
  access: FakeAccess;
  workspace: () => Promise<Workspace>;
  member: (workspaceId: number, options?: { role?: 'admin' | 'member'; active?: boolean }) => Member;
  grant: (member: Member, queueId: number, role: QueueRole | null) => void;
  call: (
    method: string,
    path: string,
    options?: { as?: Member | null; service?: Signer; body?: unknown; raw?: string; headers?: Record<string, string> },
  ) => Promise<Reply>;
  /** POST /queues as the workspace admin; fails the test unless 201. */
  queue: (ws: Workspace, fields?: { key?: string; name?: string; description?: string }) => Promise<any>;
  /** POST /issues; fails the test unless 201. */
  issue: (as: Member, queueId: number, fields?: Record<string, unknown>) => Promise<any>;
  /** A new workspace, a queue in it, and a member who may write there (read-write). */
  writableQueue: () => Promise<{ ws: Workspace; queue: any; writer: Member }>;
  outbox: (aggregateType?: string, aggregateId?: number) => Promise<Array<{ type: string; aggregate_revision: number; payload: any }>>;
  count: (table: string) => Promise<number>;
  close: () => Promise<void>;
}

let keySeq = 0;
/** A queue key unlikely to repeat within a file. */
export const uniqueKey = (prefix = 'Q') => `${prefix}${(Date.now() % 1e5).toString(36)}${(keySeq++).toString(36)}`.slice(0, 12).toUpperCase();

export async function startIssues(env: Record<string, string> = {}): Promise<IssuesHarness> {
  const schema = await createTestSchema('issues', MIGRATIONS);
  const access = await startFakeAccess('issues');
  const config = loadIssuesConfig({ ...serviceTestEnv(schema), DATABASE_POOL_MAX: '20', ACCESS_URL: access.url, ...env });
  const service = createIssuesService(config);
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger: service.logger, graceMs: 1000 });
  const url = `http://127.0.0.1:${running.port}`;
  if (!env.REDIS_URL) {
    await new Promise<void>((resolve) => (service.redis.status === 'ready' ? resolve() : service.redis.once('ready', () => resolve())));
  }

  const member: IssuesHarness['member'] = (workspaceId, options) => newMember(access, workspaceId, options);

  const signedCall = signedClient(url, 'issues');
  const call: IssuesHarness['call'] = (method, path, { as, service, ...options } = {}) =>
    signedCall(method, path, { ...options, as: service ? { kind: 'service', service } : as?.principal });

  const expectCreated = (res: Reply, what: string) => {
    if (res.status !== 201) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const workspace = async (): Promise<Workspace> => newWorkspace(access);
  const queue: IssuesHarness['queue'] = async (ws, fields = {}) => {
    const body = { key: fields.key ?? uniqueKey(), name: fields.name ?? 'A queue', ...(fields.description !== undefined && { description: fields.description }) };
    return expectCreated(await call('POST', '/api/v1/queues', { as: ws.admin, body }), 'POST /queues');
  };

  return {
    url,
    service,
    schema,
    access,
    workspace,
    member,
    grant: (m, queueId, role) => access.grant(m.id, queueId, role),
    call,
    queue,
    async issue(as, queueId, fields = {}) {
      return expectCreated(await call('POST', '/api/v1/issues', { as, body: { queue_id: queueId, title: 'An issue', ...fields } }), 'POST /issues');
    },
    async writableQueue() {
      const ws = await workspace();
      const created = await queue(ws);
      const writer = member(ws.id);
      access.grant(writer.id, created.id, 'read-write');
      return { ws, queue: created, writer };
    },
    outbox: (aggregateType, aggregateId) =>
      schema.query(
        `SELECT type, aggregate_revision, payload FROM outbox_events
         WHERE ($1::text IS NULL OR aggregate_type = $1) AND ($2::text IS NULL OR aggregate_id = $2) ORDER BY id`,
        [aggregateType ?? null, aggregateId === undefined ? null : String(aggregateId)],
      ) as never,
    count: async (table) => Number((await schema.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n),
    async close() {
      await running.shutdown();
      await service.close();
      await access.close();
      await schema.drop();
    },
  };
}

/**
 * The issues service for the tests of one file (or of one describe block, when called
 * inside it): started in beforeAll, closed in afterAll. The harness it returns is only
 * there once beforeAll has run, so use it inside hooks and tests.
 */
export function useIssuesService(env: Record<string, string> = {}): IssuesHarness {
  let started: IssuesHarness | undefined;
  beforeAll(async () => {
    started = await startIssues(env);
  });
  afterAll(() => started?.close());
  return new Proxy({} as IssuesHarness, {
    get(_, property) {
      if (!started) throw new Error('the issues service starts in beforeAll: use it inside a hook or a test');
      return started[property as keyof IssuesHarness];
    },
  });
}
