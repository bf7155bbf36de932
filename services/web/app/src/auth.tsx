import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Session } from '@tracker/contracts';
import { createTrackerClient, type TrackerClient } from '@tracker/client';
import { json, send } from './http';
import { SessionTokens, SignedOutError, type IssuedToken } from './session-token';

export type AuthState = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; session: Session };

export interface Auth {
  state: AuthState;
  /** POST /auth/sign-in, then the session. Throws a ProblemError when refused. */
  signIn: (email: string, password: string) => Promise<void>;
  /** POST /auth/setup with the link's code, then the session. */
  completeSetup: (code: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /**
   * The typed client of /api/v1 (libs/client) with the session's token: renewed once and
   * the request sent again if /api/v1 refuses the one held (401). Read answers with `ok()`.
   */
  client: TrackerClient;
  /**
   * Sends a request to /api/v1 as `client` does (the session's token, renewed once on a
   * 401), for what the typed client does not read: the live event stream.
   */
  fetchApi: (request: Request) => Promise<Response>;
}

const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** POST /auth/token: the session's bearer token; a refusal (401) means the session is over. */
async function issueToken(): Promise<IssuedToken> {
  const response = await send('POST', '/auth/token');
  if (response.status === 401) throw new SignedOutError();
  return json<IssuedToken>(response);
}

/** GET /auth/session: who is signed in, or null. */
async function readSession(): Promise<Session | null> {
  const response = await send('GET', '/auth/session');
  if (response.status === 401) return null;
  return json<Session>(response);
}

/**
 * Sends an /api/v1 request with the session's bearer token; refused (401: the token ended
 * early, say after the computer slept), once more with a new one. Signed out, it answers
 * the 401 problem itself, so the page shows "sign in again" like any other refusal.
 */
async function withSessionToken(request: Request, held: SessionTokens | null): Promise<Response> {
  if (!held) return signedOutAnswer();
  const attempt = async (token: string) => {
    const sent = request.clone();
    sent.headers.set('Authorization', `Bearer ${token}`);
    try {
      return await fetch(sent, { credentials: 'same-origin', cache: 'no-store', redirect: 'error' });
    } catch {
      return networkFailureAnswer();
    }
  };
  try {
    const response = await attempt(await held.current());
    if (response.status !== 401) return response;
    return await attempt(await held.renew());
  } catch (error) {
    if (error instanceof SignedOutError) return signedOutAnswer();
    return networkFailureAnswer();
  }
}

const problemAnswer = (status: number, code: string, detail: string) =>
  new Response(JSON.stringify({ type: 'about:blank', title: code, status, code, detail }), { status, headers: { 'Content-Type': 'application/problem+json' } });
const signedOutAnswer = () => problemAnswer(401, 'unauthorized', 'Your session has ended. Sign in again.');
/** No answer at all (offline, the gateway down): a 503 problem, so the client's retry of a POST (same Idempotency-Key) applies. */
const networkFailureAnswer = () => problemAnswer(503, 'network_error', 'Tracker could not be reached. Check the connection and try again.');

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ status: 'loading' });
  const tokens = useRef<SessionTokens | null>(null);

  const endSession = useCallback(() => {
    tokens.current?.stop();
    tokens.current = null;
    setState({ status: 'signed-out' });
  }, []);

  /** Reads the session; signed in, it starts holding (and renewing) the page's token. */
  const load = useCallback(async () => {
    const session = await readSession();
    tokens.current?.stop();
    tokens.current = null;
    if (!session) {
      setState({ status: 'signed-out' });
      return;
    }
    const held = new SessionTokens(issueToken, endSession);
    tokens.current = held;
    setState({ status: 'signed-in', session });
    // The first token now, so the renewals run from here on; a failure shows at the first call.
    held.current().catch(() => undefined);
  }, [endSession]);

  useEffect(() => {
    load().catch(() => setState({ status: 'signed-out' }));
    return () => tokens.current?.stop();
  }, [load]);

  // Each request takes the token held at the time it is sent.
  const fetchApi = useCallback((request: Request) => withSessionToken(request, tokens.current), []);

  // One client for the page's life (fetchApi never changes).
  const client = useMemo(
    () =>
      createTrackerClient({
        baseUrl: window.location.origin,
        token: '',
        fetch: fetchApi,
      }),
    [fetchApi],
  );

  const auth = useMemo<Auth>(
    () => ({
      state,
      async signIn(email, password) {
        await json<void>(await send('POST', '/auth/sign-in', { body: { email, password } }));
        await load();
      },
      async completeSetup(code, password) {
        await json<void>(await send('POST', '/auth/setup', { body: { code, password } }));
        await load();
      },
      async signOut() {
        try {
          await send('POST', '/auth/sign-out');
        } finally {
          endSession();
        }
      },
      client,
      fetchApi,
    }),
    [state, load, endSession, client, fetchApi],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}
