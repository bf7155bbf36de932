import { useMemo, useState, type FormEvent } from 'react';
import { useAuth } from '../auth';
import { FigureChart } from '../components/Chart';
import { FilterFields } from '../components/WidgetFilters';
import { ok, ProblemError } from '../http';
import { figuresOf, formatCount, formatPercent, hasFigures, subjectWithFilters, truncationNote } from '../rules/chart';
import { EMPTY_FORM, filtersFromForm, GROUPS, queryFromView, statisticsProblem, viewFromQuery, type Group, type Names } from '../rules/statistics-filters';
import { replaceQuery, useLocation } from '../router';
import { Choices, Empty, Field, formatDateTime, Loading, messageOf, PageHeading, useLoad, useTitle } from '../ui';

export function StatisticsPage() {
  useTitle('Statistics');
  const { client } = useAuth();
  const { search } = useLocation();
  const options = useLoad(async () => {
    const [queues, users] = await Promise.all([client.GET('/api/v1/queues'), client.GET('/api/v1/users')]);
    return { queues: ok(queues), users: ok(users) };
  }, [client]);
  const known = options.status === 'loaded' ? options.data.queues : null;
  const queues = useMemo(() => known ?? [], [known]);
  const users = options.status === 'loaded' ? options.data.users : [];

  // The address holds the view: the filters and the grouping, read on load and kept on reload. It names queues by key, so it is read once they are known.
  const view = useMemo(() => viewFromQuery(search, queues), [search, queues]);
  const filters = useMemo(() => filtersFromForm(view.form), [view.form]);
  const filtersKey = known ? JSON.stringify(filters) : null;
  const [form, setForm] = useState(view.form);
  const [formFor, setFormFor] = useState(filtersKey);

  // The address changed under the form (back, forward, a link, the queues now known): the form follows it.
  if (formFor !== filtersKey) {
    setFormFor(filtersKey);
    setForm(view.form);
  }

  const figures = useLoad(
    // Until the queues are known the filters are not: the figures wait (this load is dropped when they are).
    async () => (filtersKey === null ? new Promise<never>(() => {}) : ok(await client.POST('/api/v1/statistics', { body: JSON.parse(filtersKey) }))),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, filtersKey],
  );

  const show = (event: FormEvent) => {
    event.preventDefault();
    replaceQuery(queryFromView({ form, group: view.group }, queues));
  };
  const clear = () => {
    setForm(EMPTY_FORM);
    replaceQuery(queryFromView({ form: EMPTY_FORM, group: view.group }, queues));
  };
  const group = (next: Group) => replaceQuery(queryFromView({ form: view.form, group: next }, queues));

  const names: Names = {
    queue: (id) => queues.find((queue) => queue.id === id)?.key,
    status: (id) => {
      for (const queue of queues) {
        const status = queue.statuses.find((s) => s.id === id);
        if (status) return `${queue.key} ${status.name}`;
      }
      return undefined;
    },
    user: (id) => users.find((user) => user.id === id)?.name,
  };
  const subject = subjectWithFilters(view.group, filters, names);

  return (
    <>
      <PageHeading>Statistics</PageHeading>
      <p className="lead">How many issues are open, in progress and done, by queue, by assignee, and the time estimated and recorded. Only issues you can see are counted.</p>

      <section aria-labelledby="filters-heading" className="card">
        <h2 id="filters-heading">Filters</h2>
        <Loading
          loaded={options}
          what="the filters"
          render={(data) => (
            <form onSubmit={show} noValidate aria-labelledby="filters-heading">
              <FilterFields value={form} onChange={setForm} queues={data.queues} users={data.users} />
              <div className="form-actions">
                <button type="submit">Show statistics</button>
                <button type="button" className="secondary" onClick={clear}>
                  Clear filters
                </button>
              </div>
            </form>
          )}
        />
      </section>

      <section aria-labelledby="figures-heading" className="card figures-card">
        <h2 id="figures-heading">{subject}</h2>
        <div className="inline-form">
          <Field label="Group by">
            {(props) => <Choices {...props} choices={GROUPS} value={view.group} onChoose={group} />}
          </Field>
        </div>
        {figures.status === 'failed' ? (
          <div className="alert" role="alert">
            <p>The statistics could not be loaded: {figures.error instanceof ProblemError ? statisticsProblem(figures.error.problem) : messageOf(figures.error)}</p>
            <button type="button" className="secondary" onClick={() => void figures.reload()}>
              Try again
            </button>
          </div>
        ) : (
          <div className="figures-area">
            <Loading
              loaded={figures}
              what="the statistics"
              render={(stats) => {
                const set = figuresOf(view.group, stats, names);
                const note = truncationNote(stats);
                return (
                  <>
                    <p className="summary">
                      {formatCount(stats.total)} {stats.total === 1 ? 'issue matches' : 'issues match'}
                      {stats.progress.total > 0 ? `, ${formatPercent(stats.progress.done_percent)} done` : ''}.{' '}
                      {stats.as_of ? `Figures as of ${formatDateTime(stats.as_of)}.` : 'Nothing is counted yet.'}
                    </p>
                    {note && <p className="help">{note}</p>}
                    {hasFigures(set) ? (
                      <FigureChart subject={subject} caption={subject} set={set} />
                    ) : (
                      <Empty>{set.unit === 'minutes' && stats.total > 0 ? 'No time is estimated or recorded on these issues.' : 'No issues match these filters.'}</Empty>
                    )}
                  </>
                );
              }}
            />
          </div>
        )}
      </section>
    </>
  );
}
