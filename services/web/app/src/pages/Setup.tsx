import { useEffect, useState, type FormEvent } from 'react';
import { PAGES } from '../../../src/pages';
import { useAuth } from '../auth';
import { ProblemError } from '../http';
import { navigate } from '../router';
import { Alert, messageOf, PageHeading, PublicLayout, useTitle } from '../ui';

const PASSWORD_MIN = 12;
const PASSWORD_MAX = 256;

/** The code of a setup link, `/setup#code=…`: in the fragment, which no request carries. */
function codeFromFragment(): string {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('code') ?? '';
}

/** A refused setup, in words. */
export function setupProblem(error: unknown): string {
  if (error instanceof ProblemError) {
    if (error.problem.code === 'invalid_setup_code') return 'This setup link has expired or has already been used. Ask an admin for a new link.';
    if (error.problem.code === 'validation_failed') return `The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`;
  }
  return messageOf(error);
}

export function SetupPage() {
  useTitle('Set your password');
  const auth = useAuth();
  // Read from the address; the code then lives in this page's memory only.
  const [code, setCode] = useState(codeFromFragment);
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  // The code leaves the address bar (and the history) as soon as it is read; a link
  // opened while this page is shown changes only the fragment, so it is read then too.
  useEffect(() => {
    const read = () => {
      const fresh = codeFromFragment();
      if (fresh) {
        setCode(fresh);
        setProblem('');
      }
      if (window.location.hash) window.history.replaceState(null, '', PAGES.setup);
    };
    read();
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password.length < PASSWORD_MIN) {
      setProblem(`The password must be at least ${PASSWORD_MIN} characters long.`);
      return;
    }
    setBusy(true);
    setProblem('');
    try {
      await auth.completeSetup(code, password);
      navigate(PAGES.home, { replace: true });
    } catch (error) {
      setProblem(setupProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <PublicLayout>
      <PageHeading>Set your password</PageHeading>
      {code ? (
        <form className="card" onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="new-password">New password</label>
            <input
              id="new-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN}
              maxLength={PASSWORD_MAX}
              aria-describedby="new-password-help"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <p id="new-password-help" className="help">
              At least {PASSWORD_MIN} characters. A few unrelated words make a good one.
            </p>
          </div>
          <Alert>{problem}</Alert>
          <button type="submit" disabled={busy}>
            Set password
          </button>
        </form>
      ) : (
        <p className="alert" role="alert">
          This page opens from a setup link, and this address has no code. Ask an admin for a new link.
        </p>
      )}
    </PublicLayout>
  );
}
