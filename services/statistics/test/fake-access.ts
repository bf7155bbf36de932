import http from 'node:http';
import { randomInt } from 'node:crypto';
import type { QueueRole, UserAcl } from '@tracker/contracts';
import { PRINCIPAL_HEADER, verifyPrincipal } from '@tracker/kit';

/**
 * A stand-in for the access service's ACL lookup (libs/contracts/src/internal.ts) over
 * in-memory maps; like the real one it accepts only signed service principals. It never
 * writes the Redis ACL cache: tests that exercise the cache write the keys themselves.
 * Ids start at a random high number so `acl:user:<id>` keys of other test files sharing
 * the Redis server are never ours.
 */
export interface FakeAccess {
  url: string;
  calls: Array<{ method: string; path: string }>;
  /** `down`: every call answers 500 (the dependency is unavailable). */
  setDown: (down: boolean) => void;
  addWorkspace: () => number;
  addUser: (workspaceId: number) => number;
  grant: (userId: number, queueId: number, role: QueueRole | null) => void;
  aclOf: (userId: number) => UserAcl | null;
  close: () => Promise<void>;
}

export async function startFakeAccess(secret: string): Promise<FakeAccess> {
  let nextId = 1_000_000_000 + randomInt(0, 1_000_000_000);
  const users = new Map<number, { workspaceId: number; grants: Map<number, QueueRole> }>();
  const calls: FakeAccess['calls'] = [];
  let down = false;

  const aclOf = (userId: number): UserAcl | null => {
    const user = users.get(userId);
    if (!user) return null;
    return { user_id: userId, workspace_id: user.workspaceId, grants: [...user.grants].map(([queue_id, role]) => ({ queue_id, role })) };
  };

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push({ method: req.method!, path: req.url! });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const principal = verifyPrincipal(req.headers[PRINCIPAL_HEADER] as string | undefined, [secret]);
      if (principal?.kind !== 'service' || principal.service !== 'statistics') return send(401, { code: 'unauthorized' });
      if (down) return send(500, { code: 'internal_error' });
      const acl = /^\/internal\/acl\/users\/(\d+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && acl) {
        const found = aclOf(Number(acl[1]));
        return found ? send(200, found) : send(404, { code: 'not_found' });
      }
      send(404, { code: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setDown: (value) => {
      down = value;
    },
    addWorkspace: () => nextId++,
    addUser: (workspaceId) => {
      const id = nextId++;
      users.set(id, { workspaceId, grants: new Map() });
      return id;
    },
    grant: (userId, queueId, role) => {
      const grants = users.get(userId)!.grants;
      if (role) grants.set(queueId, role);
      else grants.delete(queueId);
    },
    aclOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
