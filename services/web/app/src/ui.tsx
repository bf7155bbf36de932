import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type AnchorHTMLAttributes,
  type ButtonHTMLAttributes,
  type ComponentPropsWithRef,
  type DependencyList,
  type FormEvent,
  type ReactElement,
  type ReactNode,
} from 'react';
import { PAGES, pathTo } from '../../src/pages';
import { useAuth } from './auth';
import { ProblemError, type Problem } from './http';
import { hasProblems, type FieldProblems, type FormProblems } from './rules/problems';
import { cameByNavigation, followLink, navigate } from './router';
import { SignedOutError } from './session-token';

/** The tab's title: the page's, then the product's. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Tracker`;
  }, [title]);
}

/** The page's heading; after moving within the app it takes the focus, so a screen reader starts there. */
export function PageHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (cameByNavigation()) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** What went wrong, in words, for any error a call can end with. */
export function messageOf(error: unknown): string {
  if (error instanceof SignedOutError) return 'Your session has ended. Sign in again.';
  if (error instanceof ProblemError) return error.problem.detail;
  return 'Something went wrong. Try again.';
}

/** A problem shown next to a form, read out as it appears. */
export function Alert({ id, children }: { id?: string; children: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} className="alert" role="alert">
      {children}
    </p>
  );
}

/** The frame of the pages for people not signed in (sign-in, setup). */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="topbar">
        <span className="brand">Tracker</span>
      </header>
      <main id="main" className="narrow">
        {children}
      </main>
    </>
  );
}

/** The frame of every signed-in page: who is signed in, the settings, and Sign out. */
export function SignedInLayout({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const session = auth.state.status === 'signed-in' ? auth.state.session : null;
  const signOut = async () => {
    await auth.signOut().catch(() => undefined);
    navigate(PAGES.signIn);
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Tracker</span>
        <nav aria-label="Main">
          <NavLink to={PAGES.issues}>Issues</NavLink>
          <NavLink to={PAGES.dashboards}>Dashboards</NavLink>
          <NavLink to={PAGES.statistics}>Statistics</NavLink>
          <NavLink to={PAGES.adminQueues}>Queues</NavLink>
          {session?.user.role === 'admin' && <NavLink to={PAGES.adminUsers}>Users</NavLink>}
          <NavLink to={PAGES.tokens}>Personal tokens</NavLink>
        </nav>
        <div className="who">
          {session && (
            <span className="person">
              {session.user.name} <span className="workspace">· {session.workspace.name}</span>
            </span>
          )}
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="wide" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/** A link within the app: a plain click moves without a load, and it opens in a new tab like any link. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  return (
    <a href={to} {...rest} onClick={(event) => followLink(event, to)}>
      {children}
    </a>
  );
}

/** A link of the main navigation, marked as the page shown when it (or a page under it) is. */
function NavLink({ to, children }: { to: string; children: ReactNode }) {
  const here = window.location.pathname;
  const current = here === to || here.startsWith(`${to}/`);
  return (
    <Link to={to} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The link to an issue, by its key. */
export const IssueLink = ({ issueKey }: { issueKey: string }) => <Link to={pathTo('issue', { key: issueKey })}>{issueKey}</Link>;

export type Loaded<T> = { status: 'loading' } | { status: 'failed'; problem: string; error: unknown } | { status: 'loaded'; data: T };

/**
 * Data a page reads when it opens (and again on `reload`), with its loading and failed
 * states. An answer that arrives after the page moved on (or a newer load) is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> & { reload: () => Promise<void> } {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  const generation = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const data = await run();
      if (mine === generation.current) setState({ status: 'loaded', data });
    } catch (error) {
      if (mine === generation.current) setState({ status: 'failed', problem: messageOf(error), error });
    }
  }, [run]);
  useEffect(() => {
    setState({ status: 'loading' });
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);
  return { ...state, reload };
}

/**
 * What a load shows until its data is there: "Loading…" (announced politely), or the
 * problem with a way to try again. `render` draws the data.
 */
export function Loading<T>({ loaded, what, render }: { loaded: Loaded<T> & { reload: () => Promise<void> }; what: string; render: (data: T) => ReactNode }): ReactElement {
  if (loaded.status === 'loading') {
    return (
      <p className="loading" role="status">
        Loading {what}…
      </p>
    );
  }
  if (loaded.status === 'failed') {
    return (
      <div className="alert" role="alert">
        <p>
          {what[0]!.toUpperCase() + what.slice(1)} could not be loaded: {loaded.problem}
        </p>
        <button type="button" className="secondary" onClick={() => void loaded.reload()}>
          Try again
        </button>
      </div>
    );
  }
  return <>{render(loaded.data)}</>;
}

/** Said when a list has nothing in it, so an empty page never looks broken. */
export const Empty = ({ children }: { children: ReactNode }) => <p className="empty">{children}</p>;

/**
 * A labelled form control with its hint and its problem, tied together for assistive
 * technology (aria-describedby, aria-invalid). `children` gets the control's props.
 */
export function Field({
  label,
  hint,
  problem,
  children,
}: {
  label: string;
  hint?: ReactNode;
  problem?: string;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const problemId = problem ? `${id}-problem` : undefined;
  const describedBy = [hintId, problemId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': problem ? true : undefined })}
      {hint && (
        <p id={hintId} className="help">
          {hint}
        </p>
      )}
      {problem && (
        <p id={problemId} className="field-problem">
          {problem}
        </p>
      )}
    </div>
  );
}

/** One choice of a select: the value kept or sent, and the words shown for it. */
export interface Choice<V extends string> {
  value: V;
  label: string;
}

/**
 * A select of a fixed list of choices, shown in the list's order; `onChoose` gets the value
 * chosen, typed as the list's. Every other attribute (a `Field`'s id and descriptions, an
 * aria-label, a ref) goes on the select itself, so its accessible name stays its label's.
 */
export function Choices<V extends string>({
  choices,
  onChoose,
  ...select
}: { choices: readonly Choice<V>[]; value: V; onChoose: (value: V) => void } & Omit<ComponentPropsWithRef<'select'>, 'value' | 'onChange' | 'children'>) {
  return (
    // Only the listed values can be chosen, so the chosen one is of the list's type.
    <select {...select} onChange={(e) => onChoose(e.target.value as V)}>
      {choices.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

/**
 * A polite live region for what just happened ("Saved."), read out without moving the focus.
 * `className` adds to its style, such as a line kept while empty.
 */
export const Status = ({ className, children }: { className?: string; children: ReactNode }) => (
  <p className={className ? `status ${className}` : 'status'} role="status">
    {children}
  </p>
);

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A moment's day, in the reader's language and time zone: "12 Mar 2026". */
export const formatDay = (moment: string | Date): string => dayFormat.format(new Date(moment));

/** A moment's day and time, in the reader's language and time zone: "12 Mar 2026, 14:05". */
export const formatDateTime = (moment: string | Date): string => dateTimeFormat.format(new Date(moment));

/**
 * A form's submit button. While `busy` it says so and sends nothing, yet stays enabled:
 * disabling the button that has the focus throws the focus to the page in Chromium.
 */
export function SubmitButton({ busy, onClick, children, ...rest }: { busy: boolean; children: ReactNode } & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'disabled'>) {
  return (
    <button
      {...rest}
      type="submit"
      aria-disabled={busy || undefined}
      onClick={(event) => {
        // Pressing Enter in a field clicks the submit button too, so this stops both.
        if (busy) event.preventDefault();
        else onClick?.(event);
      }}
    >
      {children}
    </button>
  );
}

/**
 * After a refusal, the focus goes to the form's first field with a problem (one that
 * `Field` marks aria-invalid). `focusProblem` asks for it; it happens once the problems
 * are drawn. With no such field the focus stays where it is.
 */
function useProblemFocus() {
  const formRef = useRef<HTMLFormElement>(null);
  const [asked, setAsked] = useState(0);
  // In the commit that draws the problems, so nothing reads the focus in between.
  useLayoutEffect(() => {
    if (asked) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [asked]);
  const focusProblem = useCallback(() => setAsked((n) => n + 1), []);
  return { formRef, focusProblem };
}

/** The steps of a form's submit that differ from form to form; `useCheckedSubmit` runs them. */
export interface SubmitSteps<F extends string> {
  /** What is wrong with what was typed, found before anything is sent. */
  check: () => FieldProblems<F>;
  /** Once the checks pass, whether there is anything to send; when not, nothing is sent and the form says why itself. */
  ready?: () => boolean;
  /** Sends what was typed, and empties the form once it is done. */
  send: () => Promise<void>;
  /** A refusal's problem placed: next to the fields it is about, the rest said once for the form. */
  place: (problem: Problem) => FormProblems<F>;
}

/**
 * A form's submit, the same for every form that checks what was typed and then sends it:
 * - nothing is sent while a check fails: its problems go next to their fields (`problems`,
 *   for each `Field`) and the focus to the first of them;
 * - while sending, `busy` is true (for the `SubmitButton`, which then sends nothing again);
 * - a refusal (a ProblemError) is placed next to the fields it is about, the focus going to
 *   the first, and what no field explains is said once (`general`, for an `Alert`); any
 *   other failure (a lost connection) is said there in words;
 * - what was typed is kept when sending fails: only `send`, once done, empties the form.
 * `formRef` goes on the form, so the focus finds its fields.
 */
export function useCheckedSubmit<F extends string>() {
  const [problems, setProblems] = useState<FieldProblems<F>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const { formRef, focusProblem } = useProblemFocus();

  const submit = async (event: FormEvent, steps: SubmitSteps<F>) => {
    event.preventDefault();
    const checked = steps.check();
    setProblems(checked);
    setGeneral('');
    if (hasProblems(checked)) {
      focusProblem();
      return;
    }
    if (steps.ready && !steps.ready()) return;
    setBusy(true);
    try {
      await steps.send();
    } catch (error) {
      if (error instanceof ProblemError) {
        const placed = steps.place(error.problem);
        setProblems(placed.fields);
        setGeneral(placed.general);
        focusProblem();
      } else setGeneral(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return { formRef, problems, general, busy, submit };
}
