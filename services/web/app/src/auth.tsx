import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Session } from '@tracker/contracts';
import { json, ProblemError, send, type Method } from './http';
import { SessionTokens, SignedOutError, type IssuedToken } from './session-token';

export type AuthState = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; session: Session };

export interface Auth {
  state: AuthState;
  /** POST /auth/sign-in, then the session. Throws a ProblemError when refused. */
  signIn: (email: string, password: string) => Promise<void>;
  /** POST /auth/setup with the link's code, then the session. */
  completeSetup: (code: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** An /api/v1 call with the session's token (renewed once and tried again if refused as expired). */
  api: <T>(method: Method, path: string, body?: unknown) => Promise<T>;
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
      async api<T>(method: Method, path: string, body?: unknown): Promise<T> {
        const held = tokens.current;
        if (!held) throw new ProblemError({ status: 401, code: 'unauthorized', detail: 'You are signed out.' });
        let response = await send(method, path, { body, token: await held.current() });
        if (response.status === 401) response = await send(method, path, { body, token: await held.renew() });
        return json<T>(response);
      },
    }),
    [state, load, endSession],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}
