import { useRef, useState, type FormEvent } from 'react';
import { pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok, ProblemError } from '../http';
import { DASHBOARD_LIMITS, nameProblem } from '../rules/dashboard-draft';
import { navigate } from '../router';
import { Empty, Field, Link, Loading, messageOf, PageHeading, useLoad, useTitle } from '../ui';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A refused creation, in words. */
function createProblem(error: unknown): string {
  if (error instanceof ProblemError && error.problem.code === 'validation_failed') {
    // The workspace's limit is told on the body as a whole; anything else is the name.
    if (error.problem.errors?.some((e) => e.path === '(body)')) return 'The workspace holds as many dashboards as it may (100). Change one of them instead.';
    return `Give the dashboard a name of 1 to ${DASHBOARD_LIMITS.name} characters.`;
  }
  return messageOf(error);
}

export function DashboardsPage() {
  useTitle('Dashboards');
  const { client } = useAuth();
  const loaded = useLoad(async () => {
    const [dashboards, users] = await Promise.all([client.GET('/api/v1/dashboards'), client.GET('/api/v1/users')]);
    const list = ok(dashboards).slice().sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    return { dashboards: list, users: ok(users) };
  }, [client]);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const wrong = nameProblem(name);
    setProblem(wrong);
    if (wrong) {
      nameRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const made = ok(await client.POST('/api/v1/dashboards', { body: { name: name.trim(), widgets: [] } }));
      navigate(pathTo('dashboard', { id: made.id }));
    } catch (error) {
      setProblem(createProblem(error));
      nameRef.current?.focus();
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeading>Dashboards</PageHeading>
      <p className="lead">Charts of your issues, shared with everyone in the workspace. Only the person who made a dashboard can change it.</p>

      <section aria-labelledby="new-dashboard-heading" className="card">
        <h2 id="new-dashboard-heading">New dashboard</h2>
        <form className="inline-form" onSubmit={create} noValidate>
          <div className="grow">
            <Field label="Name" problem={problem || undefined}>
              {(props) => (
                <input {...props} ref={nameRef} type="text" maxLength={DASHBOARD_LIMITS.name} required autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
              )}
            </Field>
          </div>
          <button type="submit" disabled={busy}>
            Create dashboard
          </button>
        </form>
      </section>

      <section aria-labelledby="dashboards-heading">
        <h2 id="dashboards-heading">All dashboards</h2>
        <Loading
          loaded={loaded}
          what="the dashboards"
          render={({ dashboards, users }) =>
            dashboards.length === 0 ? (
              <Empty>No dashboards yet. Make the first one above.</Empty>
            ) : (
              <ul className="dashboard-list">
                {dashboards.map((dashboard) => {
                  const owner = users.find((user) => user.id === dashboard.owner_id)?.name ?? 'someone no longer listed';
                  const widgets = dashboard.widgets.length === 1 ? '1 widget' : `${dashboard.widgets.length} widgets`;
                  return (
                    <li key={dashboard.id}>
                      <Link to={pathTo('dashboard', { id: dashboard.id })}>{dashboard.name}</Link>
                      <span className="meta">
                        {widgets} · by {owner} · changed {dateFormat.format(new Date(dashboard.updated_at))}
                      </span>
                    </li>
                  );
                })}
              </ul>
            )
          }
        />
      </section>
    </>
  );
}
