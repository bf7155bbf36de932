import { connectAgent, problemOf } from '@tracker/system-tests-support';
import { pollUntil, startSystem, type System } from '@tracker/system-tests-support';

/**
 * A person's way in, through the gateway with every service a process (and, in the
 * replicated project, two of each behind round-robins, so consecutive requests meet
 * different replicas): the operator's first command, the setup link, a session, a page's
 * session token, personal tokens on /api/v1 and /mcp, and every way a session ends.
 */
const PASSWORD = 'correct horse battery staple';
let system: System;

beforeAll(async () => {
  system = await startSystem({ gatewayEnv: { TOKEN_USE_FLUSH_MS: '200' } });
}, 90_000);
afterAll(() => system?.stop());

const newEmail = () => `person-${Math.random().toString(36).slice(2, 10)}@example.com`;
const codeOf = (setupUrl: string) => new URL(setupUrl).hash.replace(/^#code=/, '');

/** An /auth call as a browser on the gateway's own page makes it. */
function auth(method: string, path: string, options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { origin: system.gatewayUrl, 'sec-fetch-site': 'same-origin', ...options.headers };
  if (options.cookie) headers.cookie = `trk_session=${options.cookie}`;
  return system.api(method, path, { body: options.body, headers });
}

function cookieOf(res: { headers: Headers }): string {
  const match = /^trk_session=([^;]+);/.exec(res.headers.get('set-cookie') ?? '');
  if (!match) throw new Error(`no session cookie: ${res.headers.get('set-cookie')}`);
  return match[1]!;
}

async function setUp(setupUrl: string, password = PASSWORD): Promise<string> {
  const res = await auth('POST', '/auth/setup', { body: { code: codeOf(setupUrl), password } });
  expect(res.status).toBe(204);
  return cookieOf(res);
}

async function sessionToken(cookie: string): Promise<string> {
  const res = await auth('POST', '/auth/token', { cookie });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

/** A first admin from the command line, signed in through their setup link. */
async function firstAdmin() {
  const email = newEmail();
  const ws = await system.admin('workspace', 'create', '--name', `ws-${Math.random().toString(36).slice(2, 8)}`, '--admin-name', 'Ada', '--admin-email', email);
  expect(ws.setup_url).toMatch(/\/setup#code=[A-Za-z0-9_-]{43}$/);
  const cookie = await setUp(ws.setup_url);
  return { workspaceId: ws.workspace_id as number, userId: ws.user_id as number, email, cookie, operatorToken: ws.token as string };
}

describe('from the operator\'s first command to a personal token, without the operator again', () => {
  test('when the first admin signs in through their link, makes a token in settings and uses it, then REST and MCP both know them', async () => {
    const admin = await firstAdmin();
    const session = await auth('GET', '/auth/session', { cookie: admin.cookie });
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ id: admin.userId, email: admin.email, role: 'admin' });

    const pageToken = await sessionToken(admin.cookie);
    const made = await system.api('POST', '/api/v1/tokens', { token: pageToken, body: { name: 'my script', expires_in_days: 30 } });
    expect(made.status).toBe(201);
    const personal = made.body.token as string;
    expect(personal.slice(0, 10)).toBe(made.body.prefix);

    const me = await system.api('GET', '/api/v1/me', { token: personal });
    expect(me.body).toMatchObject({ id: admin.userId, email: admin.email });
    const agent = await connectAgent(system.gatewayUrl, personal);
    try {
      const result = await agent.callTool({ name: 'get_me', arguments: {} });
      expect(problemOf(result as { isError?: boolean; content?: unknown })).toBeNull();
      expect(result.structuredContent).toMatchObject({ id: admin.userId });
    } finally {
      await agent.close();
    }

    // The gateways report the use: last_used_at shows it within the flush interval.
    const listed = await pollUntil(
      () => system.api('GET', '/api/v1/tokens', { token: pageToken }),
      (res) => res.body.find((t: { id: number }) => t.id === made.body.id)?.last_used_at !== null,
    );
    expect(listed.body.map((t: { name: string }) => t.name)).toEqual(['my script', 'created by operator']);
  });

  test('when an admin invites a colleague, then the colleague gets in through the link and sees their own workspace', async () => {
    const admin = await firstAdmin();
    const pageToken = await sessionToken(admin.cookie);
    const email = newEmail();
    const invited = await system.api('POST', '/api/v1/users', { token: pageToken, body: { name: 'Grace', email } });
    expect(invited.status).toBe(201);
    const cookie = await setUp(invited.body.setup_url);
    const theirs = await sessionToken(cookie);
    expect((await system.api('GET', '/api/v1/me', { token: theirs })).body).toMatchObject({ id: invited.body.id, workspace: { id: admin.workspaceId } });
    const signedIn = await auth('POST', '/auth/sign-in', { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(signedIn.status).toBe(204);
  });

  test('when a personal token asks for another token, then 403 session_required; another user\'s token id is 404', async () => {
    const admin = await firstAdmin();
    const other = await firstAdmin();
    const refused = await system.api('POST', '/api/v1/tokens', { token: admin.operatorToken, body: { name: 'more', expires_in_days: 1 } });
    expect([refused.status, refused.body.code]).toEqual([403, 'session_required']);
    const made = await system.api('POST', '/api/v1/tokens', { token: await sessionToken(other.cookie), body: { name: 'theirs', expires_in_days: null } });
    const foreign = await system.api('DELETE', `/api/v1/tokens/${made.body.id}`, { token: await sessionToken(admin.cookie) });
    expect(foreign.status).toBe(404);
    expect((await system.api('GET', '/api/v1/me', { token: made.body.token })).status).toBe(200);
  });
});

describe('the cookie alone opens nothing but /auth', () => {
  test('when /api/v1 or /mcp is asked with the session cookie and no bearer token, then 401', async () => {
    const admin = await firstAdmin();
    const api = await system.api('GET', '/api/v1/me', { headers: { cookie: `trk_session=${admin.cookie}` } });
    expect(api.status).toBe(401);
    const mcp = await system.api('POST', '/mcp', {
      headers: { cookie: `trk_session=${admin.cookie}`, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.status).toBe(401);
  });

  test('when another site posts to /auth with the person\'s cookie, then 403 cross_site_request and nothing happens', async () => {
    const admin = await firstAdmin();
    const res = await auth('POST', '/auth/sign-out', { cookie: admin.cookie, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect([res.status, res.body.code]).toEqual([403, 'cross_site_request']);
    expect((await auth('GET', '/auth/session', { cookie: admin.cookie })).status).toBe(200);
  });
});

describe('a session ends on the very next request, on every replica', () => {
  /** A few requests in a row: replicated, they meet different gateways and services. */
  const everyReplica = async (token: string) => Promise.all([0, 1, 2, 3].map(() => system.api('GET', '/api/v1/me', { token }).then((r) => r.status)));

  test('when the person signs out, then their page\'s token is refused everywhere at once', async () => {
    const admin = await firstAdmin();
    const token = await sessionToken(admin.cookie);
    expect(await everyReplica(token)).toEqual([200, 200, 200, 200]);
    expect((await auth('POST', '/auth/sign-out', { cookie: admin.cookie })).status).toBe(204);
    expect(await everyReplica(token)).toEqual([401, 401, 401, 401]);
    expect((await auth('POST', '/auth/token', { cookie: admin.cookie })).status).toBe(401);
  });

  test('when the password changes, then the other sessions\' tokens are refused at once, this one\'s not', async () => {
    const admin = await firstAdmin();
    const other = cookieOf(await auth('POST', '/auth/sign-in', { body: { email: admin.email, password: PASSWORD } }));
    const otherToken = await sessionToken(other);
    const ownToken = await sessionToken(admin.cookie);
    await everyReplica(otherToken);
    const changed = await auth('POST', '/auth/password', { cookie: admin.cookie, body: { current_password: PASSWORD, new_password: 'another good passphrase' } });
    expect(changed.status).toBe(204);
    expect(await everyReplica(otherToken)).toEqual([401, 401, 401, 401]);
    expect(await everyReplica(ownToken)).toEqual([200, 200, 200, 200]);
  });

  test('when an admin deactivates a person, then their session tokens and personal tokens are refused at once', async () => {
    const admin = await firstAdmin();
    const adminToken = await sessionToken(admin.cookie);
    const invited = await system.api('POST', '/api/v1/users', { token: adminToken, body: { name: 'Grace', email: newEmail() } });
    const cookie = await setUp(invited.body.setup_url);
    const theirs = await sessionToken(cookie);
    const personal = (await system.api('POST', '/api/v1/tokens', { token: theirs, body: { name: 'p', expires_in_days: null } })).body.token;
    await everyReplica(theirs);
    await everyReplica(personal);
    expect((await system.api('PATCH', `/api/v1/users/${invited.body.id}`, { token: adminToken, body: { active: false } })).status).toBe(200);
    expect(await everyReplica(theirs)).toEqual([401, 401, 401, 401]);
    expect(await everyReplica(personal)).toEqual([401, 401, 401, 401]);
    expect((await auth('GET', '/auth/session', { cookie })).status).toBe(401);
  });

  test('when a personal token is revoked in settings, then it is refused everywhere at once', async () => {
    const admin = await firstAdmin();
    const page = await sessionToken(admin.cookie);
    const made = await system.api('POST', '/api/v1/tokens', { token: page, body: { name: 'short-lived', expires_in_days: 1 } });
    expect(await everyReplica(made.body.token)).toEqual([200, 200, 200, 200]);
    expect((await system.api('DELETE', `/api/v1/tokens/${made.body.id}`, { token: page })).body).toEqual({ id: made.body.id, revoked: true });
    expect(await everyReplica(made.body.token)).toEqual([401, 401, 401, 401]);
  });
});

describe('/auth bodies and throttling through the gateway', () => {
  test('when an /auth body is over 16 KiB, then 413 and nothing happens', async () => {
    const res = await auth('POST', '/auth/sign-in', { body: { email: newEmail(), password: 'x'.repeat(17 * 1024) } });
    expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
  });

  test('when an /auth path or method is not one of the decided ones, then 404', async () => {
    expect((await auth('GET', '/auth/sign-in')).status).toBe(404);
    expect((await auth('POST', '/auth/admin')).status).toBe(404);
  });

  test('when an email fails its limit of sign-ins, then 429 with Retry-After, on every replica', async () => {
    const admin = await firstAdmin();
    for (let i = 0; i < 10; i++) expect((await auth('POST', '/auth/sign-in', { body: { email: admin.email, password: `not it ${i} at all` } })).status).toBe(401);
    const statuses = await Promise.all([0, 1, 2].map(() => auth('POST', '/auth/sign-in', { body: { email: admin.email, password: PASSWORD } })));
    expect(statuses.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(Number(statuses[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
