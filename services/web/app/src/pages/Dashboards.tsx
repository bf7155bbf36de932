import { useState, type FormEvent } from 'react';
import { pathTo } from '../../../src/pages';
import { useAuth } from '../auth';
import { ok, type Problem } from '../http';
import { DASHBOARD_LIMITS, nameProblem } from '../rules/dashboard-draft';
import { placeProblem, type FormProblems } from '../rules/problems';
import { navigate } from '../router';
import { Alert, Empty, Field, formatDay, Link, Loading, PageHeading, SubmitButton, useCheckedSubmit, useLoad, useTitle } from '../ui';

/** A refused creation, in words: a name refused goes next to it; anything else (the workspace's limit of dashboards) is the service's word, for the form. */
const createProblems = (problem: Problem): FormProblems<'name'> =>
  placeProblem(problem, ['name'] as const, { fieldWords: { name: `Give the dashboard a name of 1 to ${DASHBOARD_LIMITS.name} characters.` } });

export function DashboardsPage() {
  useTitle('Dashboards');
  const { client } = useAuth();
  const loaded = useLoad(async () => {
    const [dashboards, users] = await Promise.all([client.GET('/api/v1/dashboards'), client.GET('/api/v1/users')]);
    const list = ok(dashboards).slice().sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    return { dashboards: list, users: ok(users) };
  }, [client]);
  const [name, setName] = useState('');
  const { formRef, problems, general, busy, submit } = useCheckedSubmit<'name'>();

  const create = (event: FormEvent) =>
    submit(event, {
      check: () => {
        const wrong = nameProblem(name);
        return wrong ? { name: wrong } : {};
      },
      send: async () => {
        const made = ok(await client.POST('/api/v1/dashboards', { body: { name: name.trim(), widgets: [] } }));
        navigate(pathTo('dashboard', { id: made.id }));
      },
      place: createProblems,
    });

  return (
    <>
      <PageHeading>Dashboards</PageHeading>
      <p className="lead">Charts of your issues, shared with everyone in the workspace. Only the person who made a dashboard can change it.</p>

      <section aria-labelledby="new-dashboard-heading" className="card">
        <h2 id="new-dashboard-heading">New dashboard</h2>
        <form ref={formRef} className="inline-form" onSubmit={create} noValidate>
          <div className="grow">
            <Field label="Name" problem={problems.name}>
              {(props) => (
                <input {...props} type="text" maxLength={DASHBOARD_LIMITS.name} required autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
              )}
            </Field>
          </div>
          <SubmitButton busy={busy}>Create dashboard</SubmitButton>
        </form>
        <Alert>{general}</Alert>
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
                        {widgets} · by {owner} · changed {formatDay(dashboard.updated_at)}
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
