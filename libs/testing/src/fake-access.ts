import { randomInt } from 'node:crypto';
import { RegisterQueue, UsersLookup, type QueueRole, type UserAcl } from '@tracker/contracts';
import type { Signer } from '@tracker/signing';
import { sendJson, startFakeUpstream } from './fake-upstream';
import { serviceCallerOf } from './tickets';

/**
 * A stand-in for the access service's internal API (libs/contracts/src/internal.ts)
 * over in-memory maps. Like the real one it accepts only signed service principals.
 * Its tickets are checked with the development keys.
 * Unlike the real one it never writes the Redis ACL cache: tests that exercise the
 * cache write the key themselves.
 *
 * Ids start at a random high number: the Redis server is shared with other test
 * files, and their `acl:user:<id>` keys must never be mistaken for ours.
 */
export interface FakeAccess {
  url: string;
  /** Every call received, in order. */
  calls: Array<{ method: string; path: string; body: unknown }>;
  /** `down`: every call answers 500 (the caller sees the dependency as unavailable). */
  setDown: (down: boolean) => void;
  addWorkspace: () => number;
  addUser: (workspaceId: number, options?: { active?: boolean }) => number;
  setActive: (userId: number, active: boolean) => void;
  grant: (userId: number, queueId: number, role: QueueRole | null) => void;
  aclOf: (userId: number) => UserAcl | null;
  registeredQueues: Map<number, { workspaceId: number; key: string }>;
  close: () => Promise<void>;
}

/** `service`: the service whose tickets the fake accepts (the service under test). */
export async function startFakeAccess(service: Signer): Promise<FakeAccess> {
  let nextId = 1_000_000_000 + randomInt(0, 1_000_000_000);
  const users = new Map<number, { workspaceId: number; active: boolean; grants: Map<number, QueueRole> }>();
  const registeredQueues = new Map<number, { workspaceId: number; key: string }>();
  const calls: FakeAccess['calls'] = [];
  let down = false;

  const aclOf = (userId: number): UserAcl | null => {
    const user = users.get(userId);
    if (!user) return null;
    return { user_id: userId, workspace_id: user.workspaceId, grants: [...user.grants].map(([queue_id, role]) => ({ queue_id, role })) };
  };

  const upstream = await startFakeUpstream((request, res) => {
    const body = request.body ? JSON.parse(request.body) : undefined;
    calls.push({ method: request.method, path: request.url, body });
    const send = (status: number, json?: unknown) => sendJson(res, status, json);
    if (serviceCallerOf(request, request.bytes, 'access') !== service) return send(401, { code: 'unauthorized' });
    if (down) return send(500, { code: 'internal_error' });

    const acl = /^\/internal\/acl\/users\/(\d+)$/.exec(request.url);
    if (request.method === 'GET' && acl) {
      const found = aclOf(Number(acl[1]));
      return found ? send(200, found) : send(404, { code: 'not_found' });
    }
    if (request.method === 'POST' && request.url === '/internal/queues') {
      const parsed = RegisterQueue.safeParse(body);
      if (!parsed.success) return send(422, { code: 'validation_failed' });
      registeredQueues.set(parsed.data.queue_id, { workspaceId: parsed.data.workspace_id, key: parsed.data.key });
      return send(200, {});
    }
    if (request.method === 'POST' && request.url === '/internal/users/lookup') {
      const parsed = UsersLookup.safeParse(body);
      if (!parsed.success) return send(422, { code: 'validation_failed' });
      const found = parsed.data.user_ids.flatMap((id) => {
        const user = users.get(id);
        return user && user.workspaceId === parsed.data.workspace_id ? [{ id, active: user.active }] : [];
      });
      return send(200, { users: found });
    }
    send(404, { code: 'not_found' });
  });

  return {
    url: upstream.url,
    calls,
    setDown: (value) => {
      down = value;
    },
    addWorkspace: () => nextId++,
    addUser: (workspaceId, options = {}) => {
      const id = nextId++;
      users.set(id, { workspaceId, active: options.active ?? true, grants: new Map() });
      return id;
    },
    setActive: (userId, active) => {
      users.get(userId)!.active = active;
    },
    grant: (userId, queueId, role) => {
      const grants = users.get(userId)!.grants;
      if (role) grants.set(queueId, role);
      else grants.delete(queueId);
    },
    aclOf,
    registeredQueues,
    close: upstream.close,
  };
}
