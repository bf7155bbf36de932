import type { Request, Response, Router } from 'express';
import { PasswordChange, SESSION_COOKIE, Setup, SignIn } from '@tracker/contracts';
import { CLIENT_HEADER, parseBody } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { accessErrors } from '../domain/access.errors';
import { isCrossSite } from '../domain/accounts.rules';
import { completeSetup } from '../domain/complete-setup.use-case';
import { changePassword, getSession, issueSessionToken, signOut } from '../domain/session.use-case';
import { signIn } from '../domain/sign-in.use-case';
import { sessionJson, sessionTokenJson } from './json';

/**
 * /auth/*: people's sign-in and sessions, forwarded by the gateway without a bearer token
 * (its ticket names no user). A request from another site is refused before anything
 * else; the session travels in the `trk_session` cookie, HttpOnly and SameSite=Lax.
 */
export function authRoutes(router: Router, deps: AccessDeps): void {
  const { publicUrl } = deps.accounts;
  const secure = publicUrl.startsWith('https:');
  const setCookie = (res: Response, sessionId: string) =>
    res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${sessionId}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${30 * 24 * 3600}${secure ? '; Secure' : ''}`);
  const clearCookie = (res: Response) => res.setHeader('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`);
  const client = (req: Request) => req.header(CLIENT_HEADER) ?? 'unknown';

  router.use('/auth', (req, _res, next) => {
    const site = { origin: req.header('origin'), fetchSite: req.header('sec-fetch-site'), host: req.header('host') };
    next(isCrossSite(site, publicUrl) ? accessErrors.crossSite() : undefined);
  });

  router.post('/auth/sign-in', async (req, res) => {
    const { sessionId } = await signIn(deps, parseBody(SignIn, req.body), client(req)).catch((err: unknown) => {
      const code = (err as { code?: string }).code;
      if (code === 'invalid_credentials' || code === 'rate_limited') deps.signIns.inc({ outcome: code === 'rate_limited' ? 'throttled' : code });
      throw err;
    });
    deps.signIns.inc({ outcome: 'signed_in' });
    setCookie(res, sessionId);
    res.status(204).end();
  });

  router.post('/auth/setup', async (req, res) => {
    const { sessionId } = await completeSetup(deps, parseBody(Setup, req.body));
    setCookie(res, sessionId);
    res.status(204).end();
  });

  router.get('/auth/session', async (req, res) => {
    res.json(sessionJson(await getSession(deps, sessionCookie(req))));
  });

  router.post('/auth/token', async (req, res) => {
    res.json(sessionTokenJson(await issueSessionToken(deps, sessionCookie(req))));
  });

  router.post('/auth/password', async (req, res) => {
    await changePassword(deps, sessionCookie(req), parseBody(PasswordChange, req.body), client(req));
    res.status(204).end();
  });

  router.post('/auth/sign-out', async (req, res) => {
    await signOut(deps, sessionCookie(req));
    clearCookie(res);
    res.status(204).end();
  });
}

/** The session id of the request's `trk_session` cookie, if it sent one. */
function sessionCookie(req: Request): string | undefined {
  for (const pair of (req.header('cookie') ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
