import { useEffect, useState, type FormEvent } from 'react';
import { useAuth } from '../auth';
import { ProblemError } from '../http';
import { navigate, safeNext, useLocation } from '../router';
import { Alert, messageOf, PageHeading, PublicLayout, useTitle } from '../ui';

/** How long until another try, in words: "30 seconds", "2 minutes". */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** A refused sign-in, in words. */
export function signInProblem(error: unknown): string {
  if (error instanceof ProblemError) {
    const { problem } = error;
    if (problem.code === 'invalid_credentials') return 'The email or password is not right. Check both and try again.';
    if (problem.code === 'rate_limited') {
      return problem.retryAfterSeconds
        ? `Too many sign-in attempts. Try again in ${waitInWords(problem.retryAfterSeconds)}.`
        : 'Too many sign-in attempts. Wait a while, then try again.';
    }
    if (problem.code === 'validation_failed') return 'Enter your email and your password.';
  }
  return messageOf(error);
}

export function SignInPage() {
  useTitle('Sign in');
  const auth = useAuth();
  const { search } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  // Already signed in (or just now): on to where they were going.
  useEffect(() => {
    if (auth.state.status === 'signed-in') navigate(safeNext(search), { replace: true });
  }, [auth.state.status, search]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem('');
    try {
      await auth.signIn(email.trim(), password);
    } catch (error) {
      setProblem(signInProblem(error));
      setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <PublicLayout>
      <PageHeading>Sign in</PageHeading>
      <form className="card" onSubmit={submit} aria-describedby={problem ? 'sign-in-problem' : undefined} noValidate>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <Alert id="sign-in-problem">{problem}</Alert>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p className="hint">New here, or forgot your password? Ask a workspace admin for a setup link.</p>
    </PublicLayout>
  );
}
