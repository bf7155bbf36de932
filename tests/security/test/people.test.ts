import { startSystem, type System } from '@tracker/system-tests-support';

/**
 * People's credentials under attack: sign-in timing says nothing about which emails
 * exist, no password, code, session id or token ever reaches a log line, and /auth bodies
 * are bounded like every other.
 */
const PASSWORD = 'correct horse battery staple';
let system: System;

beforeAll(async () => {
  system = await startSystem();
}, 90_000);
afterAll(() => system?.stop());

const newEmail = () => `person-${Math.random().toString(36).slice(2, 10)}@example.com`;
const codeOf = (setupUrl: string) => new URL(setupUrl).hash.replace(/^#code=/, '');
const auth = (method: string, path: string, body?: unknown, cookie?: string, client = `10.1.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) =>
  system.api(method, path, { body, headers: { ...(cookie ? { cookie: `trk_session=${cookie}` } : {}), 'x-forwarded-for': client } });
const cookieOf = (res: { headers: Headers }) => /^trk_session=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')![1]!;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timeSignIn(email: string, password: string): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await auth('POST', '/auth/sign-in', { email, password });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  expect(res.status).toBe(401);
  return ms;
}

test('when sign-ins are timed, then a wrong password and an unknown email take the same time (Argon2id work in both)', async () => {
  const email = newEmail();
  const ws = await system.admin('workspace', 'create', '--name', 'Timing', '--admin-name', 'Ada', '--admin-email', email);
  expect((await auth('POST', '/auth/setup', { code: codeOf(ws.setup_url), password: PASSWORD })).status).toBe(204);
  const wrong: number[] = [];
  const unknown: number[] = [];
  // Alternating, each from its own address and under the per-email limit (9 wrong passwords).
  for (let i = 0; i < 9; i++) {
    wrong.push(await timeSignIn(email, `wrong password ${i}`));
    unknown.push(await timeSignIn(newEmail(), `wrong password ${i}`));
  }
  const [w, u] = [median(wrong), median(unknown)];
  // An unknown email answered without hashing would take a fraction of a millisecond of
  // work against Argon2id's tens: the medians must be within a third of each other.
  expect(Math.min(w, u) / Math.max(w, u)).toBeGreaterThan(0.66);
  expect(Math.min(w, u)).toBeGreaterThan(5);
}, 60_000);

test('when a person gets in, makes tokens, fails and signs out, then no password, setup code, session id or token appears in any log line', async () => {
  const email = newEmail();
  const ws = await system.admin('workspace', 'create', '--name', 'Logs', '--admin-name', 'Ada', '--admin-email', email);
  const code = codeOf(ws.setup_url);
  const secrets: string[] = [PASSWORD, 'a second passphrase here', 'wrong password, logged?', code, ws.token];
  const setup = await auth('POST', '/auth/setup', { code, password: PASSWORD });
  const cookie = cookieOf(setup);
  secrets.push(cookie);
  await auth('POST', '/auth/sign-in', { email, password: 'wrong password, logged?' });
  const page = (await auth('POST', '/auth/token', undefined, cookie)).body.access_token as string;
  secrets.push(page);
  const made = await system.api('POST', '/api/v1/tokens', { token: page, body: { name: 'logged?', expires_in_days: 1 } });
  secrets.push(made.body.token);
  await system.api('GET', '/api/v1/me', { token: made.body.token });
  await system.api('GET', '/api/v1/me', { token: `${made.body.token.slice(0, -1)}X` });
  await auth('POST', '/auth/password', { current_password: PASSWORD, new_password: 'a second passphrase here' }, cookie);
  await auth('POST', '/auth/sign-out', undefined, cookie);
  await new Promise((resolve) => setTimeout(resolve, 500));

  const logs = Object.keys(system.services).flatMap((name) => system.instances(name as keyof System['services']).map((p) => p.output())).join('\n');
  expect(logs.length).toBeGreaterThan(1000);
  for (const secret of secrets) expect([secret.slice(0, 12), logs.includes(secret)]).toEqual([secret.slice(0, 12), false]);
}, 60_000);

test('when an /auth body is over 16 KiB, sent whole or chunked, then 413 and the client reads it', async () => {
  const big = JSON.stringify({ email: newEmail(), password: 'x'.repeat(20_000) });
  const whole = await auth('POST', '/auth/sign-in', JSON.parse(big));
  expect([whole.status, whole.body.code]).toEqual([413, 'payload_too_large']);
  const chunked = await fetch(`${system.gatewayUrl}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode(i === 0 ? `{"password":"${'x'.repeat(1000)}` : 'x'.repeat(1000)));
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  expect(chunked.status).toBe(413);
});
