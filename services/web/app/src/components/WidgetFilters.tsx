import { useId } from 'react';
import type { Schemas } from '@tracker/client';
import { PRIORITIES, PRIORITY_NAMES } from '../rules/issue-fields';
import { CATEGORIES, FILTER_LIMITS, fieldToIds, NO_IDS, type FilterForm } from '../rules/statistics-filters';
import { Choices, Field, type Choice } from '../ui';

export type Queue = Schemas['Queue'];
export type User = Schemas['User'];

const CATEGORY_CHOICES: ReadonlyArray<Choice<FilterForm['category']>> = [{ value: '', label: 'Any category' }, ...CATEGORIES];

/**
 * An id list the choices of a select cannot show (several ids, the empty list, an id not
 * offered): one more option for it, so a saved widget keeps its filter through an edit.
 */
function keptOption(value: string, offered: string[], name: (id: number) => string | undefined, what: string) {
  if (value === '' || offered.includes(value)) return null;
  if (value === NO_IDS) return <option value={value}>No {what} (shows nothing)</option>;
  const ids = fieldToIds(value) ?? [];
  const words = ids.map((id) => name(id) ?? `${what} ${id}`);
  return <option value={value}>{words.join(' or ')} (as saved)</option>;
}

/**
 * The filters of statistics and widgets, one labelled control each: queue, status, status
 * category, assignee, priority, label, text, mine, overdue. Only the queues the person can
 * see are offered (GET /queues lists no other).
 */
export function FilterFields({ value, onChange, queues, users }: { value: FilterForm; onChange: (next: FilterForm) => void; queues: Queue[]; users: User[] }) {
  const id = useId();
  const set = <K extends keyof FilterForm>(field: K, next: FilterForm[K]) => onChange({ ...value, [field]: next });
  const queueName = (queueId: number) => queues.find((q) => q.id === queueId)?.key;
  const allStatuses = queues.flatMap((queue) => queue.statuses.map((status) => ({ ...status, queueKey: queue.key })));
  const statusName = (statusId: number) => {
    const status = allStatuses.find((s) => s.id === statusId);
    return status ? `${status.queueKey} ${status.name}` : undefined;
  };
  const userName = (userId: number) => users.find((u) => u.id === userId)?.name;
  const chosenQueues = fieldToIds(value.queues);
  // One queue chosen: its statuses alone; otherwise every visible queue's, by queue.
  const statusQueues = chosenQueues && chosenQueues.length === 1 ? queues.filter((q) => q.id === chosenQueues[0]) : queues;

  const chooseQueue = (next: string) => {
    const ids = fieldToIds(next);
    const statuses = fieldToIds(value.statuses);
    // A status of another queue would count nothing: dropped with the queue change.
    const keep = !ids || !statuses || statuses.every((s) => allStatuses.some((st) => st.id === s && ids.includes(st.queue_id)));
    onChange({ ...value, queues: next, statuses: keep ? value.statuses : '' });
  };

  return (
    <div className="filter-fields">
      <Field label="Queue">
        {(props) => (
          <select {...props} value={value.queues} onChange={(e) => chooseQueue(e.target.value)}>
            <option value="">All queues you can see</option>
            {queues.map((queue) => (
              <option key={queue.id} value={String(queue.id)}>
                {queue.key}: {queue.name}
              </option>
            ))}
            {keptOption(value.queues, queues.map((q) => String(q.id)), queueName, 'queue')}
          </select>
        )}
      </Field>
      <Field label="Status">
        {(props) => (
          <select {...props} value={value.statuses} onChange={(e) => set('statuses', e.target.value)}>
            <option value="">Any status</option>
            {statusQueues.map((queue) => (
              <optgroup key={queue.id} label={queue.key}>
                {queue.statuses.map((status) => (
                  <option key={status.id} value={String(status.id)}>
                    {status.name}
                  </option>
                ))}
              </optgroup>
            ))}
            {keptOption(value.statuses, statusQueues.flatMap((q) => q.statuses.map((s) => String(s.id))), statusName, 'status')}
          </select>
        )}
      </Field>
      <Field label="Status category">
        {(props) => <Choices {...props} choices={CATEGORY_CHOICES} value={value.category} onChoose={(category) => set('category', category)} />}
      </Field>
      <Field label="Assignee">
        {(props) => (
          <select {...props} value={value.assignees} onChange={(e) => set('assignees', e.target.value)}>
            <option value="">Anyone or nobody</option>
            {users.map((user) => (
              <option key={user.id} value={String(user.id)}>
                {user.name}
                {user.active ? '' : ' (deactivated)'}
              </option>
            ))}
            {keptOption(value.assignees, users.map((u) => String(u.id)), userName, 'user')}
          </select>
        )}
      </Field>
      <Field label="Priority">
        {(props) => (
          <select {...props} value={value.priority} onChange={(e) => set('priority', e.target.value as FilterForm['priority'])}>
            <option value="">Any priority</option>
            {PRIORITIES.map((priority) => (
              <option key={priority} value={priority}>
                {PRIORITY_NAMES[priority]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Label" hint="Exactly as written, capitals included.">
        {(props) => <input {...props} type="text" maxLength={FILTER_LIMITS.label} autoComplete="off" value={value.label} onChange={(e) => set('label', e.target.value)} />}
      </Field>
      <Field label="Text" hint="Words in the key, title, description or comments.">
        {(props) => <input {...props} type="search" maxLength={FILTER_LIMITS.search} autoComplete="off" value={value.search} onChange={(e) => set('search', e.target.value)} />}
      </Field>
      <div className="filter-checks">
        <div className="check">
          <input id={`${id}-mine`} type="checkbox" checked={value.mine} onChange={(e) => set('mine', e.target.checked)} />
          <label htmlFor={`${id}-mine`}>Mine</label>
        </div>
        <div className="check">
          <input id={`${id}-overdue`} type="checkbox" checked={value.overdue} onChange={(e) => set('overdue', e.target.checked)} />
          <label htmlFor={`${id}-overdue`}>Overdue</label>
        </div>
      </div>
    </div>
  );
}
