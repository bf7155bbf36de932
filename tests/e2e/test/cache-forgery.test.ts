import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { devSigningKey, parseTrustedKeys, verifiedPayload } from '@tracker/signing';
import { aclCacheKey, authCacheKey, hashToken, signCacheEntry } from '@tracker/authz';
import { seedWorkspace, startSystem, waitForOutput, type System } from '@tracker/system-tests-support';
import { testRedisUrl } from '@tracker/testing';

/**
 * The whole system, its processes each with their own fresh key: whoever can write
 * Redis gains nothing. Forged principals and grant lists (plain JSON, signed with the
 * development keys anyone can derive, signed by another part of this system, genuine
 * ones copied to another key) are cache misses that the access service decides.
 */
let system: System;
beforeAll(async () => {
  system = await startSystem();
}, 60_000);
afterAll(() => system?.stop());

/** One Redis command over RESP (this package has no Redis client of its own). */
function redis(...args: string[]): Promise<string | number | null> {
  const url = new URL(testRedisUrl());
  const frame = (parts: string[]) => `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
  const prelude = [
    ...(url.password ? [frame(url.username ? ['AUTH', decodeURIComponent(url.username), decodeURIComponent(url.password)] : ['AUTH', decodeURIComponent(url.password)])] : []),
    frame(['SELECT', url.pathname.slice(1) || '0']),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname.replace(/^\[|\]$/g, ''));
    let data = Buffer.alloc(0);
    let skip = prelude.length;
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      for (;;) {
        // latin1: one character per byte, so indexes are byte offsets.
        const text = data.toString('latin1');
        const end = text.indexOf('\r\n');
        if (end < 0) return;
        let value: string | number | null;
        let used: number;
        if (text[0] === '-') return reject(new Error(text.slice(1, end)));
        if (text[0] === '$') {
          const length = Number(text.slice(1, end));
          if (length < 0) [value, used] = [null, end + 2];
          else if (data.length < end + 2 + length + 2) return;
          else [value, used] = [data.subarray(end + 2, end + 2 + length).toString('utf8'), end + 2 + length + 2];
        } else [value, used] = [text[0] === ':' ? Number(text.slice(1, end)) : text.slice(1, end), end + 2];
        data = data.subarray(used);
        if (skip-- > 0) continue;
        socket.end();
        return resolve(value);
      }
    });
    socket.write(prelude.join('') + frame(args));
  });
}

const newToken = () => `trk_${randomBytes(30).toString('hex')}`;
const admin = (ws: { id: number; admin: { id: number } }) => ({ kind: 'user', userId: ws.admin.id, workspaceId: ws.id, workspaceRole: 'admin', tokenId: 1 });
const accessPublicKeys = () => parseTrustedKeys(`access:${system.keys.access.publicKey}`);

describe('forged principals in Redis', () => {
  test('when an admin principal is written into Redis for a made-up token (plain, with a development key, with another part\'s key), then 401', async () => {
    const ws = await seedWorkspace(system);
    const forgeries = [
      () => JSON.stringify(admin(ws)),
      (key: string) => signCacheEntry(devSigningKey('access'), key, admin(ws), 300),
      (key: string) => signCacheEntry(system.keys.issues, key, admin(ws), 300),
      (key: string) => signCacheEntry(system.keys.gateway, key, admin(ws), 300),
    ];
    for (const forge of forgeries) {
      const token = newToken();
      const key = authCacheKey(hashToken(token));
      await redis('SET', key, forge(key), 'EX', '300');
      const res = await system.api('GET', '/api/v1/users', { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect(await waitForOutput(system.instances('gateway'), 'ignoring an authorization cache entry')).toBe(true);
  });

  test("when the access service's genuine entry for an admin's token is copied under another token's key, then that token gets 401", async () => {
    const ws = await seedWorkspace(system);
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);
    const genuine = (await redis('GET', authCacheKey(hashToken(ws.admin.token)))) as string;
    // What the access service wrote: signed with this system's access key, for the admin's key.
    expect(verifiedPayload(genuine, 'access', accessPublicKeys())).toMatchObject({ key: authCacheKey(hashToken(ws.admin.token)), value: { userId: ws.admin.id, workspaceRole: 'admin' } });
    const attacker = newToken();
    await redis('SET', authCacheKey(hashToken(attacker)), genuine, 'EX', '300');
    expect((await system.api('GET', '/api/v1/users', { token: attacker })).status).toBe(401);
    // The admin's own token still works (from the cache or the access service).
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);
  });

  test('when a member\'s cached principal is overwritten with an admin one, then the member is still a member', async () => {
    const ws = await seedWorkspace(system);
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).body.role).toBe('member');
    const key = authCacheKey(hashToken(ws.member.token));
    await redis('SET', key, JSON.stringify({ kind: 'user', userId: ws.member.id, workspaceId: ws.id, workspaceRole: 'admin', tokenId: 1 }), 'EX', '300');
    expect((await system.api('PATCH', `/api/v1/users/${ws.admin.id}`, { token: ws.member.token, body: { role: 'member' } })).status).toBe(403);
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).body.role).toBe('admin');
  });
});

describe('forged grant lists in Redis', () => {
  test('when a member writes themselves an admin grant (plain, with a development key, copied from a colleague), then the queue stays hidden', async () => {
    const ws = await seedWorkspace(system);
    const queue = (await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: `F${randomBytes(3).toString('hex').toUpperCase()}`, name: 'Forged' } })).body;
    const issue = (await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queue.id, title: 'Secret' } })).body;
    expect((await system.api('GET', `/api/v1/issues/${issue.key}`, { token: ws.member.token })).status).toBe(404);
    // A colleague with a real grant: the access service caches their signed grant list.
    const colleague = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Cy');
    expect((await system.api('PUT', `/api/v1/queues/${queue.id}/permissions/${colleague.user_id}`, { token: ws.admin.token, body: { role: 'admin' } })).status).toBe(200);
    expect((await system.api('GET', `/api/v1/issues/${issue.key}`, { token: colleague.token })).status).toBe(200);
    const colleagues = (await redis('GET', aclCacheKey(colleague.user_id))) as string;
    expect(verifiedPayload(colleagues, 'access', accessPublicKeys())).toMatchObject({ key: aclCacheKey(colleague.user_id) });

    const key = aclCacheKey(ws.member.id);
    const grant = { user_id: ws.member.id, workspace_id: ws.id, grants: [{ queue_id: queue.id, role: 'admin' }] };
    const forgeries = [JSON.stringify(grant), signCacheEntry(devSigningKey('access'), key, grant, 300), signCacheEntry(system.keys.statistics, key, grant, 300), colleagues];
    for (const forged of forgeries) {
      await redis('SET', key, forged, 'EX', '300');
      expect((await system.api('GET', `/api/v1/issues/${issue.key}`, { token: ws.member.token })).status).toBe(404);
      expect((await system.api('PATCH', `/api/v1/queues/${queue.id}`, { token: ws.member.token, body: { name: 'Hijacked' } })).status).toBe(404);
      expect((await system.api('POST', '/api/v1/statistics', { token: ws.member.token, body: { queue_ids: [queue.id] } })).status).toBe(403);
    }
    expect((await system.api('GET', `/api/v1/issues/${issue.key}`, { token: ws.admin.token })).body.title).toBe('Secret');
  });
});
