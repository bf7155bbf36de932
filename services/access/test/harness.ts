import path from 'node:path';
import { Redis } from 'ioredis';
import { serve, type Principal, type RunningServer, type UserPrincipal } from '@tracker/kit';
import { createTestSchema, serviceTestEnv, signedClient, testRedisUrl, type TestSchema } from '@tracker/testing';
import { createAccessService, type AccessService } from '../src/app';
import { loadAccessConfig } from '../src/config';
import { addUser } from '../src/domain/add-user.use-case';
import { createWorkspace } from '../src/domain/create-workspace.use-case';

const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export interface Member {
  id: number;
  workspaceId: number;
  name: string;
  token: string;
  principal: UserPrincipal;
}

/** The access service in this test process, on a random port, in its own schema. */
export interface AccessHarness {
  url: string;
  service: AccessService;
  schema: TestSchema;
  redis: Redis;
  workspace: (name?: string) => Promise<{ id: number; admin: Member }>;
  member: (workspaceId: number, role?: 'admin' | 'member') => Promise<Member>;
  call: (method: string, path: string, options?: { as?: Principal | null; body?: unknown; raw?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: any; headers: Headers }>;
  close: () => Promise<void>;
}

export async function startAccess(env: Record<string, string> = {}): Promise<AccessHarness> {
  const schema = await createTestSchema('access', MIGRATIONS);
  const config = loadAccessConfig({ ...serviceTestEnv(schema), ...env });
  const service = createAccessService(config);
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger: service.logger, graceMs: 1000 });
  const url = `http://127.0.0.1:${running.port}`;
  const redis = new Redis(testRedisUrl());
  // Tests expect the cache in use from the first request (unless they point Redis elsewhere).
  if (!env.REDIS_URL) {
    await new Promise<void>((resolve) => (service.redis.status === 'ready' ? resolve() : service.redis.once('ready', () => resolve())));
  }

  const principalOf = (workspaceId: number, userId: number, role: 'admin' | 'member'): UserPrincipal => ({
    kind: 'user',
    userId,
    workspaceId,
    workspaceRole: role,
    tokenId: 0,
  });

  return {
    url,
    service,
    schema,
    redis,
    async workspace(name = `ws-${Math.random().toString(36).slice(2, 8)}`) {
      const created = await createWorkspace(service.deps, { name, adminName: 'Admin' });
      return {
        id: created.workspace_id,
        admin: { id: created.user_id, workspaceId: created.workspace_id, name: 'Admin', token: created.token, principal: principalOf(created.workspace_id, created.user_id, 'admin') },
      };
    },
    async member(workspaceId, role = 'member') {
      const name = `user-${Math.random().toString(36).slice(2, 8)}`;
      const created = await addUser(service.deps, { workspaceId, name, role });
      return { id: created.user_id, workspaceId, name, token: created.token, principal: principalOf(workspaceId, created.user_id, role) };
    },
    call: signedClient(url, 'access'),
    async close() {
      await running.shutdown();
      await service.close();
      redis.disconnect();
      await schema.drop();
    },
  };
}
