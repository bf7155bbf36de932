import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { PAGES } from '../../../src/pages';
import { useAuth } from '../auth';
import { FigureChart } from '../components/Chart';
import { WidgetEditor, type WidgetValue } from '../components/WidgetEditor';
import type { Queue, User } from '../components/WidgetFilters';
import { ok, ProblemError } from '../http';
import { chartSubject, figuresOf, hasFigures, subjectWithFilters, summaryOf, truncationNote, widgetName, type Statistics } from '../rules/chart';
import {
  DASHBOARD_LIMITS,
  dashboardIdOf,
  draftOf,
  inputOf,
  isChanged,
  nameProblem,
  saveProblem,
  staleness,
  unsavedWidgets,
  type Dashboard,
  type Draft,
  type DraftWidget,
} from '../rules/dashboard-draft';
import { sameFilters, statisticsProblem, type Filters, type Names } from '../rules/statistics-filters';
import { Alert, Empty, Field, formatDateTime, Link, Loading, messageOf, PageHeading, Status, SubmitButton, useLoad, useTitle } from '../ui';

type FigureState = { status: 'loading' } | { status: 'loaded'; stats: Statistics } | { status: 'failed'; problem: string };

interface PageData {
  found: true;
  dashboard: Dashboard;
  /** GET /dashboards/{id}/statistics: each saved widget's figures, in order. */
  statistics: Statistics[];
  queues: Queue[];
  users: User[];
  /** Which load this is: a reload starts the editing afresh. */
  stamp: number;
}

let loads = 0;

/** Why figures could not be had, in words. */
const problemOf = (error: unknown) => (error instanceof ProblemError ? statisticsProblem(error.problem) : messageOf(error));

export function DashboardPage({ dashboardId }: { dashboardId: string }) {
  const { client, state } = useAuth();
  const me = state.status === 'signed-in' ? state.session.user.id : null;
  const loaded = useLoad<PageData | { found: false }>(async () => {
    const id = dashboardIdOf(dashboardId);
    if (id === null) return { found: false };
    // The dashboard (there is no GET of one: the list has it), its figures in one request, and the names its filters use.
    const [list, statistics, queues, users] = await Promise.all([
      client.GET('/api/v1/dashboards'),
      client.GET('/api/v1/dashboards/{dashboard_id}/statistics', { params: { path: { dashboard_id: id } } }),
      client.GET('/api/v1/queues'),
      client.GET('/api/v1/users'),
    ]);
    const dashboard = ok(list).find((d) => d.id === id);
    if (!dashboard || statistics.response.status === 404) return { found: false };
    return { found: true, dashboard, statistics: ok(statistics).widgets, queues: ok(queues), users: ok(users), stamp: ++loads };
  }, [client, dashboardId]);
  const [renamed, setRenamed] = useState<{ stamp: number; name: string } | null>(null);

  let heading = 'Dashboard';
  if (loaded.status === 'loaded') {
    const data = loaded.data;
    heading = data.found ? (renamed?.stamp === data.stamp ? renamed.name : data.dashboard.name) : 'Dashboard not found';
  }
  useTitle(heading);

  return (
    <>
      <PageHeading>{heading}</PageHeading>
      <Loading
        loaded={loaded}
        what="the dashboard"
        render={(data) =>
          data.found ? (
            <DashboardView key={data.stamp} data={data} me={me} reload={loaded.reload} onSaved={(saved) => setRenamed({ stamp: data.stamp, name: saved.name })} />
          ) : (
            <>
              <p>There is no dashboard here that you can see. It may never have existed, or one of its widgets shows a queue you have no access to.</p>
              <p>
                <Link to={PAGES.dashboards}>All dashboards</Link>
              </p>
            </>
          )
        }
      />
    </>
  );
}

function DashboardView({ data, me, reload, onSaved }: { data: PageData; me: number | null; reload: () => Promise<void>; onSaved: (saved: Dashboard) => void }) {
  const { client } = useAuth();
  const [saved, setSaved] = useState(data.dashboard);
  const [draft, setDraft] = useState<Draft>(() => draftOf(data.dashboard));
  const [figures, setFigures] = useState<Record<string, FigureState>>(() =>
    Object.fromEntries(draftOf(data.dashboard).widgets.map((widget, index) => [widget.key, data.statistics[index] ? { status: 'loaded', stats: data.statistics[index] } : { status: 'loading' }])),
  );
  /** The editor shown: 'new', a widget's key, or none. */
  const [open, setOpen] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [nameError, setNameError] = useState('');
  const [saveError, setSaveError] = useState('');
  /** When the dashboard was saved elsewhere after this page read it. */
  const [conflict, setConflict] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const widgetsHeading = useRef<HTMLHeadingElement>(null);
  const newWidgetButton = useRef<HTMLButtonElement>(null);
  /** The newest request for each widget's figures; an older answer is dropped. */
  const latest = useRef(new Map<string, number>());
  const requests = useRef(0);
  const keys = useRef(0);

  const isOwner = me !== null && saved.owner_id === me;
  const names: Names = useMemo(() => {
    const statuses = data.queues.flatMap((queue) => queue.statuses.map((status) => ({ id: status.id, name: `${queue.key} ${status.name}` })));
    return {
      queue: (id) => data.queues.find((queue) => queue.id === id)?.key,
      status: (id) => statuses.find((status) => status.id === id)?.name,
      user: (id) => data.users.find((user) => user.id === id)?.name,
    };
  }, [data.queues, data.users]);
  const ownerName = data.users.find((user) => user.id === saved.owner_id)?.name ?? 'someone no longer listed';
  const changed = isChanged(saved, draft);
  const unsaved = unsavedWidgets(saved, draft);

  /** A widget's figures for filters not saved yet: POST /statistics. */
  const preview = useCallback(
    async (key: string, filters: Filters) => {
      const mine = ++requests.current;
      latest.current.set(key, mine);
      setFigures((all) => ({ ...all, [key]: { status: 'loading' } }));
      let next: FigureState;
      try {
        next = { status: 'loaded', stats: ok(await client.POST('/api/v1/statistics', { body: filters })) };
      } catch (error) {
        next = { status: 'failed', problem: problemOf(error) };
      }
      if (latest.current.get(key) === mine) setFigures((all) => ({ ...all, [key]: next }));
    },
    [client],
  );

  // Saved widgets the dashboard's statistics did not cover (saved again between the two reads) get theirs alone.
  useEffect(() => {
    draftOf(data.dashboard).widgets.forEach((widget, index) => {
      if (!data.statistics[index]) void preview(widget.key, widget.filters);
    });
  }, [data, preview]);

  // After an add, an edit or a removal, the focus goes where the person's attention is.
  useEffect(() => {
    if (focusKey !== 'widgets' && focusKey !== 'new-widget') return;
    (focusKey === 'widgets' ? widgetsHeading : newWidgetButton).current?.focus();
    setFocusKey(null);
  }, [focusKey]);

  const nameOf = (widget: Pick<DraftWidget, 'title' | 'type' | 'filters'>) => widgetName(widget.title, widget.type, widget.filters, names);

  const add = (value: WidgetValue) => {
    const key = `new-${++keys.current}`;
    setDraft((d) => ({ ...d, widgets: [...d.widgets, { key, ...value }] }));
    void preview(key, value.filters);
    setOpen(null);
    setFocusKey(key);
    setStatus(`Added the widget “${nameOf(value)}”. Save the dashboard to keep it.`);
  };

  const apply = (widget: DraftWidget, value: WidgetValue) => {
    setDraft((d) => ({ ...d, widgets: d.widgets.map((w) => (w.key === widget.key ? { ...w, ...value } : w)) }));
    if (!sameFilters(widget.filters, value.filters)) void preview(widget.key, value.filters);
    setOpen(null);
    setFocusKey(widget.key);
    setStatus(`Changed the widget “${nameOf(value)}”. Save the dashboard to keep the change.`);
  };

  const remove = (widget: DraftWidget) => {
    const index = draft.widgets.findIndex((w) => w.key === widget.key);
    const rest = draft.widgets.filter((w) => w.key !== widget.key);
    setDraft({ ...draft, widgets: rest });
    if (open === widget.key) setOpen(null);
    setFocusKey(rest[index]?.key ?? rest[index - 1]?.key ?? 'widgets');
    setStatus(`Removed the widget “${nameOf(widget)}”. Save the dashboard to keep the change.`);
  };

  const save = async (overwrite: boolean) => {
    const wrongName = nameProblem(draft.name);
    setNameError(wrongName);
    setSaveError('');
    setStatus('');
    if (wrongName) {
      nameRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      if (!overwrite) {
        // Dashboards carry no version: a save in between shows as a newer updated_at.
        const current = ok(await client.GET('/api/v1/dashboards')).find((d) => d.id === saved.id);
        const seen = staleness(saved.updated_at, current);
        if (seen === 'gone') {
          setSaveError(saveProblem({ status: 404, code: 'not_found', detail: '' }));
          return;
        }
        if (seen === 'changed') {
          setConflict(current!.updated_at);
          return;
        }
      }
      const result = ok(await client.PUT('/api/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: saved.id } }, body: inputOf(draft) }));
      const rekeyed = draftOf(result);
      // The figures follow their widgets to their saved places; answers still on the way are dropped.
      latest.current.clear();
      setFigures((all) => Object.fromEntries(rekeyed.widgets.map((widget, index) => [widget.key, all[draft.widgets[index]!.key] ?? { status: 'loading' }])));
      setSaved(result);
      setDraft(rekeyed);
      setConflict(null);
      setOpen(null);
      onSaved(result);
      setStatus('Dashboard saved.');
      void refresh(result.id, rekeyed);
    } catch (error) {
      setSaveError(error instanceof ProblemError ? saveProblem(error.problem) : messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  /** Every saved widget's figures again, in one request; kept as they are if it fails. */
  const refresh = async (id: number, current: Draft) => {
    const mine = ++requests.current;
    current.widgets.forEach((widget) => latest.current.set(widget.key, mine));
    try {
      const answer = ok(await client.GET('/api/v1/dashboards/{dashboard_id}/statistics', { params: { path: { dashboard_id: id } } }));
      setFigures((all) => {
        const next = { ...all };
        current.widgets.forEach((widget, index) => {
          const stats = answer.widgets[index];
          if (stats && latest.current.get(widget.key) === mine) next[widget.key] = { status: 'loaded', stats };
        });
        return next;
      });
    } catch {
      // the previews stand
    }
  };

  const submitName = (event: FormEvent) => {
    event.preventDefault();
    void save(false);
  };

  const submitOverwrite = (event: FormEvent) => {
    event.preventDefault();
    void save(true);
  };

  const full = draft.widgets.length >= DASHBOARD_LIMITS.widgets;

  return (
    <>
      <p className="lead">
        {saved.widgets.length === 1 ? '1 widget' : `${saved.widgets.length} widgets`} · made by {isOwner ? 'you' : ownerName} · saved {formatDateTime(saved.updated_at)}
        {isOwner ? '' : `. Only ${ownerName} can change it.`}
      </p>

      {isOwner && (
        <section aria-labelledby="edit-dashboard-heading" className="card">
          <h2 id="edit-dashboard-heading">Edit this dashboard</h2>
          <form className="inline-form" onSubmit={submitName} noValidate>
            <div className="grow">
              <Field label="Dashboard name" problem={nameError || undefined}>
                {(props) => (
                  <input
                    {...props}
                    ref={nameRef}
                    type="text"
                    maxLength={DASHBOARD_LIMITS.name}
                    required
                    autoComplete="off"
                    readOnly={busy}
                    value={draft.name}
                    onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))}
                  />
                )}
              </Field>
            </div>
            <SubmitButton busy={busy}>Save dashboard</SubmitButton>
          </form>
          <p className="help save-state">{changed ? 'Some changes are not saved yet.' : 'Everything is saved.'}</p>
          <Alert>{saveError}</Alert>
          {conflict && (
            <div className="alert" role="alert">
              <p>
                This dashboard was saved elsewhere at {formatDateTime(conflict)}, after this page read it. Reload to see that version (your changes here are
                dropped), or save yours over it.
              </p>
              <form className="form-actions" onSubmit={submitOverwrite}>
                <button type="button" className="secondary" onClick={() => void reload()}>
                  Reload
                </button>
                <SubmitButton busy={busy}>Save anyway</SubmitButton>
              </form>
            </div>
          )}
          <Status>{status}</Status>
          {/* While a save is on its way the widgets cannot change: what the save answers replaces them. */}
          <div inert={busy}>
            <div className="form-actions">
              <button
                ref={newWidgetButton}
                type="button"
                className="secondary"
                aria-expanded={open === 'new'}
                disabled={full}
                aria-describedby={full ? 'widgets-full' : undefined}
                onClick={() => setOpen(open === 'new' ? null : 'new')}
              >
                New widget
              </button>
              {full && (
                <span id="widgets-full" className="help">
                  A dashboard holds at most {DASHBOARD_LIMITS.widgets} widgets.
                </span>
              )}
            </div>
            {open === 'new' && (
              <WidgetEditor
                name="New widget"
                initial={{ type: 'statuses', title: '', filters: {} }}
                submitText="Add widget"
                queues={data.queues}
                users={data.users}
                onSubmit={add}
                onCancel={() => {
                  setOpen(null);
                  setFocusKey('new-widget');
                }}
              />
            )}
          </div>
        </section>
      )}

      <section aria-labelledby="widgets-heading" inert={busy}>
        <h2 id="widgets-heading" ref={widgetsHeading} tabIndex={-1}>
          Widgets
        </h2>
        {draft.widgets.length === 0 && <Empty>{isOwner ? 'No widgets yet. Add one with “New widget”.' : 'No widgets yet.'}</Empty>}
        {draft.widgets.map((widget) => (
          <WidgetCard
            key={widget.key}
            widget={widget}
            name={nameOf(widget)}
            subject={chartSubject(widget.title, widget.type, widget.filters, names)}
            figures={figures[widget.key] ?? { status: 'loading' }}
            names={names}
            unsaved={unsaved.has(widget.key)}
            isOwner={isOwner}
            editing={open === widget.key}
            focus={focusKey === widget.key}
            onFocused={() => setFocusKey(null)}
            onEdit={() => setOpen(open === widget.key ? null : widget.key)}
            onRemove={() => remove(widget)}
            onRetry={() => void preview(widget.key, widget.filters)}
            editor={
              <WidgetEditor
                name={`Edit ${nameOf(widget)}`}
                initial={widget}
                submitText="Apply changes"
                queues={data.queues}
                users={data.users}
                onSubmit={(value) => apply(widget, value)}
                onCancel={() => {
                  setOpen(null);
                  setFocusKey(widget.key);
                }}
              />
            }
          />
        ))}
      </section>
    </>
  );
}

function WidgetCard({
  widget,
  name,
  subject,
  figures,
  names,
  unsaved,
  isOwner,
  editing,
  focus,
  onFocused,
  onEdit,
  onRemove,
  onRetry,
  editor,
}: {
  widget: DraftWidget;
  name: string;
  subject: string;
  figures: FigureState;
  names: Names;
  unsaved: boolean;
  isOwner: boolean;
  editing: boolean;
  focus: boolean;
  onFocused: () => void;
  onEdit: () => void;
  onRemove: () => void;
  onRetry: () => void;
  editor: ReactNode;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useFocusWhen(focus, headingRef, onFocused);
  const headingId = `widget-${widget.key}`;
  return (
    <section className="card widget" aria-labelledby={headingId}>
      <div className="widget-head">
        <h3 id={headingId} ref={headingRef} tabIndex={-1}>
          {name}
        </h3>
        {unsaved && <span className="tag">Not saved yet</span>}
      </div>
      {widget.title.trim() && <p className="help">{subjectWithFilters(widget.type, widget.filters, names)}</p>}
      <Figures figures={figures} widget={widget} name={name} subject={subject} names={names} onRetry={onRetry} />
      {isOwner && (
        <div className="form-actions">
          <button type="button" className="secondary" aria-expanded={editing} aria-label={`Edit widget ${name}`} onClick={onEdit}>
            Edit widget
          </button>
          <button type="button" className="danger" aria-label={`Remove widget ${name}`} onClick={onRemove}>
            Remove widget
          </button>
        </div>
      )}
      {editing && editor}
    </section>
  );
}

function Figures({ figures, widget, name, subject, names, onRetry }: { figures: FigureState; widget: DraftWidget; name: string; subject: string; names: Names; onRetry: () => void }) {
  if (figures.status === 'loading') {
    return (
      <p className="loading figures-placeholder" role="status">
        Loading figures…
      </p>
    );
  }
  if (figures.status === 'failed') {
    return (
      <div className="alert figures-placeholder" role="alert">
        <p>The figures could not be loaded: {figures.problem}</p>
        <button type="button" className="secondary" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  const set = figuresOf(widget.type, figures.stats, names);
  const note = truncationNote(figures.stats);
  return (
    <>
      {hasFigures(set) ? <FigureChart subject={subject} caption={name} set={set} /> : <Empty>{set.unit === 'minutes' ? 'No time estimated or recorded on these issues.' : 'No issues match these filters.'}</Empty>}
      {widget.type === 'stats' && <p className="summary">{summaryOf(figures.stats)}</p>}
      {note && <p className="help">{note}</p>}
    </>
  );
}

/** Moves the focus to `ref` once `when` turns true, then says so. */
function useFocusWhen(when: boolean, ref: RefObject<HTMLElement | null>, done: () => void) {
  useEffect(() => {
    if (!when) return;
    ref.current?.focus();
    done();
  }, [when, ref, done]);
}
