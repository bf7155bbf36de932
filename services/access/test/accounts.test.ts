import { hashToken } from '@tracker/authz';
import type { UserPrincipal } from '@tracker/kit';
import { startAccess, type AccessHarness } from './harness';

/**
 * People's way in, at the access service (real Postgres and Redis): invitations and setup
 * links, Argon2id passwords, sign-in and its throttling, sessions and their lifetimes,
 * session tokens, personal tokens with expiry and last use. /auth requests come as the
 * gateway forwards them: a service ticket naming no user, the cookie, the client's address.
 */
const PUBLIC_URL = 'https://tracker.example.com';
const PASSWORD = 'correct horse battery staple';
let access: AccessHarness;

beforeAll(async () => {
  access = await startAccess({ PUBLIC_URL, SIGN_IN_FAILURES_PER_EMAIL: '3', SIGN_IN_FAILURES_PER_CLIENT: '6' });
});
afterAll(() => access.close());

const gateway = { kind: 'service', service: 'gateway' } as const;
/** Counters live 15 minutes in Redis: each run and test its own addresses. */
const newClient = () => `192.0.2.${Math.floor(Math.random() * 250) + 1}-${Math.random().toString(36).slice(2, 8)}`;
const newEmail = () => `person-${Math.random().toString(36).slice(2, 10)}@Example.com`;

interface AuthCall {
  body?: unknown;
  cookie?: string;
  client?: string;
  headers?: Record<string, string>;
}

function auth(method: string, path: string, options: AuthCall = {}) {
  const headers: Record<string, string> = { 'x-tracker-client': options.client ?? newClient(), ...options.headers };
  if (options.cookie) headers.cookie = `other=1; trk_session=${options.cookie}`;
  return access.call(method, path, { as: gateway, body: options.body, headers });
}

/** The session id a Set-Cookie gives, and the cookie's attributes. */
function cookieOf(res: { headers: Headers }): { id: string; attributes: string } {
  const header = res.headers.get('set-cookie') ?? '';
  const match = /^trk_session=([^;]*);(.*)$/.exec(header);
  if (!match) throw new Error(`no session cookie in "${header}"`);
  return { id: match[1]!, attributes: match[2]!.trim() };
}

const codeOf = (setupUrl: string) => new URL(setupUrl).hash.replace(/^#code=/, '');

async function resolve(token: string): Promise<{ principal: UserPrincipal | null; expired?: boolean }> {
  const res = await access.call('POST', '/internal/auth/resolve', { as: gateway, body: { token_hash: hashToken(token) } });
  return res.body;
}

/** A workspace with an invited member who has set their password; their session cookie. */
async function signedInMember() {
  const ws = await access.workspace();
  const email = newEmail();
  const invited = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'Grace', email } });
  const setup = await auth('POST', '/auth/setup', { body: { code: codeOf(invited.body.setup_url), password: PASSWORD } });
  expect(setup.status).toBe(204);
  return { ws, email, userId: invited.body.id as number, cookie: cookieOf(setup).id };
}

async function sessionToken(cookie: string): Promise<{ token: string; principal: UserPrincipal }> {
  const res = await auth('POST', '/auth/token', { cookie });
  expect(res.status).toBe(200);
  const { principal } = await resolve(res.body.access_token);
  return { token: res.body.access_token, principal: principal! };
}

describe('inviting a colleague', () => {
  test('when an admin adds a user by email, then 201 with the user (email as given) and a setup link on the public address', async () => {
    const ws = await access.workspace();
    const res = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'Grace Hopper', email: 'Grace@Example.com', role: 'member' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspace_id: ws.id,
      name: 'Grace Hopper',
      role: 'member',
      active: true,
      email: 'Grace@Example.com',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      setup_url: expect.stringMatching(/^https:\/\/tracker\.example\.com\/setup#code=[A-Za-z0-9_-]{43}$/),
    });
    const users = await access.call('GET', '/api/v1/users', { as: ws.admin.principal });
    expect(users.body.map((u: { email: string | null }) => u.email)).toEqual([null, 'Grace@Example.com']);
  });

  test('when the email is taken in any workspace, whatever its case, then 409 email_taken and no user is added', async () => {
    const ws = await access.workspace();
    const other = await access.workspace();
    const email = newEmail();
    expect((await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'A', email } })).status).toBe(201);
    const again = await access.call('POST', '/api/v1/users', { as: other.admin.principal, body: { name: 'B', email: email.toUpperCase() } });
    expect([again.status, again.body.code]).toEqual([409, 'email_taken']);
    expect((await access.call('GET', '/api/v1/users', { as: other.admin.principal })).body).toHaveLength(1);
  });

  test('when a member invites, or the body is bad, then 403 or 422 and nothing is added', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    expect((await access.call('POST', '/api/v1/users', { as: member.principal, body: { name: 'X', email: newEmail() } })).status).toBe(403);
    for (const body of [{ name: 'X' }, { name: 'X', email: 'not-an-email' }, { name: '', email: newEmail() }, { name: 'X', email: newEmail(), role: 'owner' }, { name: 'X', email: newEmail(), extra: 1 }, { name: 'X', email: `${'a'.repeat(250)}@x.io` }]) {
      const res = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body });
      expect([res.status, res.body.code]).toEqual([422, 'validation_failed']);
    }
    expect((await access.call('GET', '/api/v1/users', { as: ws.admin.principal })).body).toHaveLength(2);
  });

  test('when an admin asks a new setup link for a user without email, then it must name one; with one, the user gets it', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const none = await access.call('POST', `/api/v1/users/${member.id}/setup-link`, { as: ws.admin.principal });
    expect([none.status, none.body.errors]).toEqual([422, [{ path: 'email', message: 'is required: the user has none' }]]);
    const email = newEmail();
    const given = await access.call('POST', `/api/v1/users/${member.id}/setup-link`, { as: ws.admin.principal, body: { email } });
    expect(given.status).toBe(200);
    expect(given.body).toEqual({ setup_url: expect.stringMatching(/^https:\/\/tracker\.example\.com\/setup#code=/) });
    const other = await access.workspace();
    expect((await access.call('POST', `/api/v1/users/${member.id}/setup-link`, { as: other.admin.principal, body: {} })).status).toBe(404);
  });
});

describe('setup links', () => {
  test('when the link\'s form sets a password, then 204 and a session cookie (HttpOnly, SameSite=Lax, Secure on https), stored as Argon2id', async () => {
    const ws = await access.workspace();
    const invited = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'Grace', email: newEmail() } });
    const res = await auth('POST', '/auth/setup', { body: { code: codeOf(invited.body.setup_url), password: PASSWORD } });
    expect(res.status).toBe(204);
    const cookie = cookieOf(res);
    expect(cookie.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.attributes).toBe('Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000; Secure');
    const [user] = await access.schema.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [invited.body.id]);
    expect(user!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // Neither the code nor the session id is stored as such.
    const stored = JSON.stringify(await access.schema.query('SELECT * FROM setup_links UNION ALL SELECT id, user_id, id_hash, created_at, expires_at, ended_at FROM sessions'));
    expect(stored).not.toContain(codeOf(invited.body.setup_url));
    expect(stored).not.toContain(cookie.id);
  });

  test('when a code is used twice, superseded by a newer link, or expired, then 400 invalid_setup_code and nothing changes', async () => {
    const ws = await access.workspace();
    const email = newEmail();
    const invited = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'Grace', email } });
    const first = codeOf(invited.body.setup_url);
    const second = codeOf((await access.call('POST', `/api/v1/users/${invited.body.id}/setup-link`, { as: ws.admin.principal })).body.setup_url);
    const superseded = await auth('POST', '/auth/setup', { body: { code: first, password: PASSWORD } });
    expect([superseded.status, superseded.body.code]).toEqual([400, 'invalid_setup_code']);
    expect((await auth('POST', '/auth/setup', { body: { code: second, password: PASSWORD } })).status).toBe(204);
    expect((await auth('POST', '/auth/setup', { body: { code: second, password: 'another password entirely' } })).status).toBe(400);
    expect((await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD } })).status).toBe(204);

    const third = codeOf((await access.call('POST', `/api/v1/users/${invited.body.id}/setup-link`, { as: ws.admin.principal })).body.setup_url);
    await access.schema.query(`UPDATE setup_links SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [invited.body.id]);
    expect((await auth('POST', '/auth/setup', { body: { code: third, password: PASSWORD } })).status).toBe(400);
    for (const code of ['', 'x'.repeat(43), 'not a code']) expect((await auth('POST', '/auth/setup', { body: { code, password: PASSWORD } })).status).toBe(400);
  });

  test('when the password is too short or too long, then 422 and the link stays good', async () => {
    const ws = await access.workspace();
    const invited = await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'Grace', email: newEmail() } });
    const code = codeOf(invited.body.setup_url);
    for (const password of ['short', 'x'.repeat(257)]) {
      const res = await auth('POST', '/auth/setup', { body: { code, password } });
      expect([res.status, res.body.errors?.[0]?.path]).toEqual([422, 'password']);
    }
    expect((await auth('POST', '/auth/setup', { body: { code, password: PASSWORD } })).status).toBe(204);
  });

  test('when the link serves a forgotten password, then the user\'s earlier sessions end', async () => {
    const { ws, userId, cookie } = await signedInMember();
    const link = await access.call('POST', `/api/v1/users/${userId}/setup-link`, { as: ws.admin.principal });
    expect((await auth('POST', '/auth/setup', { body: { code: codeOf(link.body.setup_url), password: 'a brand new passphrase' } })).status).toBe(204);
    expect((await auth('GET', '/auth/session', { cookie })).status).toBe(401);
  });
});

describe('sign-in', () => {
  test('when the email (any case) and password are right, then 204 and a session; GET /auth/session names the user', async () => {
    const { email, userId, ws } = await signedInMember();
    const res = await auth('POST', '/auth/sign-in', { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(res.status).toBe(204);
    const session = await auth('GET', '/auth/session', { cookie: cookieOf(res).id });
    expect(session.status).toBe(200);
    expect(session.body).toEqual({ user: expect.objectContaining({ id: userId, email, role: 'member' }), workspace: { id: ws.id, name: expect.any(String) } });
  });

  test('when the password is wrong, the email unknown, the user has no password yet or is deactivated, then the same 401 invalid_credentials', async () => {
    const { ws, email, userId } = await signedInMember();
    const noPassword = (await access.call('POST', '/api/v1/users', { as: ws.admin.principal, body: { name: 'New', email: newEmail() } })).body.email;
    const deactivated = await signedInMember();
    await access.call('PATCH', `/api/v1/users/${deactivated.userId}`, { as: deactivated.ws.admin.principal, body: { active: false } });
    const bodies = [];
    for (const attempt of [{ email, password: 'wrong password here' }, { email: newEmail(), password: PASSWORD }, { email: noPassword, password: PASSWORD }, { email: deactivated.email, password: PASSWORD }]) {
      const res = await auth('POST', '/auth/sign-in', { body: attempt });
      expect(res.headers.get('set-cookie')).toBeNull();
      bodies.push([res.status, res.body]);
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toEqual([401, expect.objectContaining({ code: 'invalid_credentials', status: 401 })]);
    expect(userId).toBeGreaterThan(0);
  });

  test('when an email has failed its limit, then even the right password is 429 with Retry-After, and another email goes on', async () => {
    const target = await signedInMember();
    const other = await signedInMember();
    for (let i = 0; i < 3; i++) expect((await auth('POST', '/auth/sign-in', { body: { email: target.email, password: `wrong guess ${i}!!` } })).status).toBe(401);
    const refused = await auth('POST', '/auth/sign-in', { body: { email: target.email, password: PASSWORD } });
    expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect((await auth('POST', '/auth/sign-in', { body: { email: other.email, password: PASSWORD } })).status).toBe(204);
  });

  test('when one client address has failed its limit across many emails, then it is 429 for any email while other addresses go on', async () => {
    const person = await signedInMember();
    const client = `client-${Math.random().toString(36).slice(2)}`;
    for (let i = 0; i < 6; i++) expect((await auth('POST', '/auth/sign-in', { body: { email: newEmail(), password: PASSWORD }, client })).status).toBe(401);
    expect((await auth('POST', '/auth/sign-in', { body: { email: person.email, password: PASSWORD }, client })).status).toBe(429);
    expect((await auth('POST', '/auth/sign-in', { body: { email: person.email, password: PASSWORD } })).status).toBe(204);
  });

  test('when bodies are bad, then 422 and no session', async () => {
    for (const body of [{}, { email: 'a@b.c' }, { email: 'a@b.c', password: 'x'.repeat(257) }, { email: 1, password: 2 }, { email: 'a@b.c', password: 'p', more: true }]) {
      const res = await auth('POST', '/auth/sign-in', { body });
      expect([res.status, res.headers.get('set-cookie')]).toEqual([422, null]);
    }
  });
});

describe('requests from another site', () => {
  test.each([
    ['an Origin of another site', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
    ['Origin null', { origin: 'null' }],
  ])('when a request to /auth carries %s, then 403 cross_site_request and nothing happens', async (_name, headers) => {
    const { email } = await signedInMember();
    const res = await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD }, headers });
    expect([res.status, res.body.code, res.headers.get('set-cookie')]).toEqual([403, 'cross_site_request', null]);
  });

  test('when the Origin is the public address, or the address the request was sent to, then it passes', async () => {
    const { email } = await signedInMember();
    expect((await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD }, headers: { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' } })).status).toBe(204);
    const host = new URL(access.url).host;
    expect((await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD }, headers: { origin: `http://${host}` } })).status).toBe(204);
  });
});

describe('sessions and their tokens', () => {
  test('when a page asks for a token, then a 15-minute bearer token of the user, cached no longer than it lives', async () => {
    const { cookie, userId, ws } = await signedInMember();
    const res = await auth('POST', '/auth/token', { cookie });
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^trk_[0-9A-Za-z]{40}$/), expires_in: 900 });
    const { principal } = await resolve(res.body.access_token);
    expect(principal).toEqual({ kind: 'user', userId, workspaceId: ws.id, workspaceRole: 'member', tokenId: expect.any(Number) });
    const ttl = await access.redis.ttl(`auth:tok:${hashToken(res.body.access_token)}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900);
  });

  test('when there is no session, or the cookie is made up, then 401 for session and token', async () => {
    for (const cookie of [undefined, 'x'.repeat(43), 'short']) {
      expect((await auth('GET', '/auth/session', { cookie })).status).toBe(401);
      expect((await auth('POST', '/auth/token', { cookie })).status).toBe(401);
    }
  });

  test('when the user signs out, then the session and its tokens end on the very next request, and the cookie is cleared', async () => {
    const { cookie } = await signedInMember();
    const { token } = await sessionToken(cookie);
    const out = await auth('POST', '/auth/sign-out', { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('trk_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure');
    expect((await auth('GET', '/auth/session', { cookie })).status).toBe(401);
    expect((await resolve(token)).principal).toBeNull();
    expect(await access.redis.exists(`auth:tok:${hashToken(token)}`)).toBe(0);
    expect((await auth('POST', '/auth/sign-out', { cookie })).status).toBe(204);
  });

  test('when a session has been idle 12 hours, or reached its 30 days, then it and its tokens no longer count', async () => {
    const idle = await signedInMember();
    const idleToken = (await sessionToken(idle.cookie)).token;
    await access.redis.del(`auth:tok:${hashToken(idleToken)}`);
    await access.schema.query(`UPDATE sessions SET last_seen_at = now() - interval '12 hours 1 second' WHERE user_id = $1`, [idle.userId]);
    expect((await auth('GET', '/auth/session', { cookie: idle.cookie })).status).toBe(401);
    expect(await resolve(idleToken)).toEqual({ principal: null, expired: true });

    const old = await signedInMember();
    await access.schema.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [old.userId]);
    expect((await auth('POST', '/auth/token', { cookie: old.cookie })).status).toBe(401);
  });

  test('when the password is changed, then every other session and its tokens end, this one goes on; a wrong current password changes nothing', async () => {
    const { email, cookie } = await signedInMember();
    const other = cookieOf(await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD } })).id;
    const otherToken = (await sessionToken(other)).token;
    const wrong = await auth('POST', '/auth/password', { cookie, body: { current_password: 'not the password', new_password: 'a new passphrase here' } });
    expect([wrong.status, wrong.body.errors]).toEqual([422, [{ path: 'current_password', message: 'is not the current password' }]]);
    expect((await auth('POST', '/auth/password', { cookie, body: { current_password: PASSWORD, new_password: 'a new passphrase here' } })).status).toBe(204);
    expect((await auth('GET', '/auth/session', { cookie })).status).toBe(200);
    expect((await auth('GET', '/auth/session', { cookie: other })).status).toBe(401);
    expect((await resolve(otherToken)).principal).toBeNull();
    expect((await auth('POST', '/auth/sign-in', { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await auth('POST', '/auth/sign-in', { body: { email, password: 'a new passphrase here' } })).status).toBe(204);
  });

  test('when the user is deactivated, then their sessions end for good, even once they are active again', async () => {
    const { ws, userId, cookie } = await signedInMember();
    const { token } = await sessionToken(cookie);
    await access.call('PATCH', `/api/v1/users/${userId}`, { as: ws.admin.principal, body: { active: false } });
    expect((await resolve(token)).principal).toBeNull();
    await access.call('PATCH', `/api/v1/users/${userId}`, { as: ws.admin.principal, body: { active: true } });
    expect((await auth('GET', '/auth/session', { cookie })).status).toBe(401);
    expect((await resolve(token)).principal).toBeNull();
  });
});

describe('personal tokens', () => {
  test('when a signed-in person makes a token, then 201 with its secret once; it is listed without it, newest first, beside the operator\'s', async () => {
    const { cookie, ws } = await signedInMember();
    const { principal } = await sessionToken(cookie);
    const made = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'CI pipeline', expires_in_days: 30 } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(Number),
      name: 'CI pipeline',
      prefix: made.body.token.slice(0, 10),
      created_at: expect.any(String),
      expires_at: expect.any(String),
      last_used_at: null,
      token: expect.stringMatching(/^trk_[0-9A-Za-z]{40}$/),
    });
    const days = (Date.parse(made.body.expires_at) - Date.parse(made.body.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 3);
    expect((await resolve(made.body.token)).principal).toMatchObject({ userId: principal.userId, tokenId: made.body.id });

    const forever = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'forever', expires_in_days: null } });
    const listed = await access.call('GET', '/api/v1/tokens', { as: principal });
    expect(listed.body.map((t: { name: string }) => t.name)).toEqual(['forever', 'CI pipeline']);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    expect(forever.body.expires_at).toBeNull();

    // The operator's tokens are listed as theirs; the admin here has one.
    const adminPrincipal = (await resolve(ws.admin.token)).principal!;
    expect((await access.call('GET', '/api/v1/tokens', { as: adminPrincipal })).body).toEqual([expect.objectContaining({ name: 'created by operator', prefix: ws.admin.token.slice(0, 10) })]);
  });

  test('when the request comes with a personal token, then 403 session_required: a leaked token cannot mint more', async () => {
    const { ws } = await signedInMember();
    const adminPrincipal = (await resolve(ws.admin.token)).principal!;
    const res = await access.call('POST', '/api/v1/tokens', { as: adminPrincipal, body: { name: 'more', expires_in_days: 1 } });
    expect([res.status, res.body.code]).toEqual([403, 'session_required']);
    expect((await access.call('GET', '/api/v1/tokens', { as: adminPrincipal })).body).toHaveLength(1);
  });

  test('when names or expiries are out of range, then 422', async () => {
    const { cookie } = await signedInMember();
    const { principal } = await sessionToken(cookie);
    for (const body of [{ name: '', expires_in_days: 1 }, { name: 'x'.repeat(101), expires_in_days: 1 }, { name: 'x', expires_in_days: 0 }, { name: 'x', expires_in_days: 367 }, { name: 'x', expires_in_days: 1.5 }, { name: 'x' }, { name: 'x', expires_in_days: 1, scope: 'all' }]) {
      expect((await access.call('POST', '/api/v1/tokens', { as: principal, body })).status).toBe(422);
    }
  });

  test('when a person holds 100 personal tokens, then the 101st is 422 until one is revoked', async () => {
    const { cookie, userId } = await signedInMember();
    const { principal } = await sessionToken(cookie);
    const values = Array.from({ length: 100 }, (_, i) => `(${userId}, '${'h'.repeat(54)}${String(i).padStart(10, '0')}', 'trk_x', 'bulk ${i}')`).join(',');
    await access.schema.query(`INSERT INTO tokens (user_id, hash, hint, name) VALUES ${values}`);
    const refused = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'one more', expires_in_days: 1 } });
    expect([refused.status, refused.body.errors]).toEqual([422, [{ path: '(body)', message: 'at most 100 personal tokens' }]]);
    const oldest = (await access.call('GET', '/api/v1/tokens', { as: principal })).body.at(-1);
    expect((await access.call('DELETE', `/api/v1/tokens/${oldest.id}`, { as: principal })).status).toBe(200);
    expect((await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'one more', expires_in_days: 1 } })).status).toBe(201);
  });

  test('when a token is revoked, then it stops at once; another user\'s token, a session token, or one revoked before is 404', async () => {
    const me = await signedInMember();
    const someoneElse = await signedInMember();
    const { principal } = await sessionToken(me.cookie);
    const made = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'to revoke', expires_in_days: null } });
    await resolve(made.body.token);
    const theirs = (await sessionToken(someoneElse.cookie)).principal;
    expect((await access.call('DELETE', `/api/v1/tokens/${made.body.id}`, { as: theirs })).status).toBe(404);
    expect((await access.call('DELETE', `/api/v1/tokens/${principal.tokenId}`, { as: principal })).status).toBe(404);
    const revoked = await access.call('DELETE', `/api/v1/tokens/${made.body.id}`, { as: principal });
    expect([revoked.status, revoked.body]).toEqual([200, { id: made.body.id, revoked: true }]);
    expect((await resolve(made.body.token)).principal).toBeNull();
    expect((await access.call('DELETE', `/api/v1/tokens/${made.body.id}`, { as: principal })).status).toBe(404);
    expect((await access.call('GET', '/api/v1/tokens', { as: principal })).body).toEqual([]);
  });

  test('when a token has expired, then the access service says so, and caches nothing for it', async () => {
    const { cookie } = await signedInMember();
    const { principal } = await sessionToken(cookie);
    const made = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'short', expires_in_days: 1 } });
    await access.schema.query(`UPDATE tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [made.body.id]);
    await access.redis.del(`auth:tok:${hashToken(made.body.token)}`);
    expect(await resolve(made.body.token)).toEqual({ principal: null, expired: true });
    expect(await access.redis.exists(`auth:tok:${hashToken(made.body.token)}`)).toBe(0);
  });

  test('when the gateways report uses, then last_used_at shows the latest, and an older report never moves it back', async () => {
    const { cookie } = await signedInMember();
    const { principal } = await sessionToken(cookie);
    const made = await access.call('POST', '/api/v1/tokens', { as: principal, body: { name: 'used', expires_in_days: null } });
    const at = '2026-11-29T10:00:00.000Z';
    expect((await access.call('POST', '/internal/tokens/used', { as: gateway, body: { uses: [{ token_id: made.body.id, at }] } })).status).toBe(204);
    await access.call('POST', '/internal/tokens/used', { as: gateway, body: { uses: [{ token_id: made.body.id, at: '2026-11-29T09:00:00.000Z' }] } });
    const listed = await access.call('GET', '/api/v1/tokens', { as: principal });
    expect(listed.body[0]).toMatchObject({ id: made.body.id, last_used_at: at });
    // Only the gateway reports uses.
    expect((await access.call('POST', '/internal/tokens/used', { as: { kind: 'service', service: 'issues' }, body: { uses: [] } })).status).toBe(403);
  });
});

describe('pruning what is over', () => {
  test('when session tokens expired, sessions ended and links were spent over a day ago, then they are deleted; live ones stay', async () => {
    const over = await signedInMember();
    const live = await signedInMember();
    const overToken = (await sessionToken(over.cookie)).token;
    const liveToken = (await sessionToken(live.cookie)).token;
    await auth('POST', '/auth/sign-out', { cookie: over.cookie });
    await access.schema.query(`UPDATE sessions SET ended_at = now() - interval '2 days' WHERE user_id = $1`, [over.userId]);
    await access.schema.query(`UPDATE tokens SET expires_at = now() - interval '2 days' WHERE user_id = $1 AND session_id IS NOT NULL`, [over.userId]);
    await access.schema.query(`UPDATE setup_links SET used_at = now() - interval '2 days' WHERE user_id = $1`, [over.userId]);
    const { pruneSignIns } = await import('../src/domain/prune-sign-ins.use-case');
    const pruned = await pruneSignIns(access.service.deps);
    expect(pruned).toMatchObject({ tokens: expect.any(Number), sessions: expect.any(Number), setupLinks: expect.any(Number) });
    const left = async (userId: number) => (await access.schema.query<{ n: number }>(`SELECT (SELECT count(*) FROM sessions WHERE user_id = $1)::int + (SELECT count(*) FROM tokens WHERE user_id = $1 AND session_id IS NOT NULL)::int + (SELECT count(*) FROM setup_links WHERE user_id = $1)::int AS n`, [userId]))[0]!.n;
    expect(await left(over.userId)).toBe(0);
    expect(await left(live.userId)).toBeGreaterThanOrEqual(3);
    expect((await resolve(liveToken)).principal).not.toBeNull();
    expect((await resolve(overToken)).principal).toBeNull();
    // Nothing of the pruned sessions became a personal token.
    expect((await access.schema.query(`SELECT id FROM tokens WHERE user_id = $1 AND session_id IS NULL AND name = 'session'`, [over.userId]))).toEqual([]);
  });
});
