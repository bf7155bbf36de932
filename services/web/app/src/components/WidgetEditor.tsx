import { useState, type FormEvent } from 'react';
import { WIDGET_TYPES, type WidgetType } from '../rules/chart';
import { DASHBOARD_LIMITS, titleProblem } from '../rules/dashboard-draft';
import { filtersFromForm, formFromFilters, type Filters } from '../rules/statistics-filters';
import { Choices, Field } from '../ui';
import { FilterFields, type Queue, type User } from './WidgetFilters';

export interface WidgetValue {
  type: WidgetType;
  title: string;
  filters: Filters;
}

/**
 * A widget's title, grouping and filters as a form, named for assistive technology
 * (`name`: "New widget", "Edit …"). Submitting hands the widget over; the dashboard keeps
 * it until "Save dashboard".
 */
export function WidgetEditor({
  name,
  initial,
  submitText,
  queues,
  users,
  onSubmit,
  onCancel,
}: {
  name: string;
  initial: WidgetValue;
  submitText: string;
  queues: Queue[];
  users: User[];
  onSubmit: (widget: WidgetValue) => void;
  onCancel: () => void;
}) {
  const [type, setType] = useState<WidgetType>(initial.type);
  const [title, setTitle] = useState(initial.title);
  const [form, setForm] = useState(() => formFromFilters(initial.filters));
  const [problem, setProblem] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wrong = titleProblem(title);
    setProblem(wrong);
    if (wrong) return;
    onSubmit({ type, title: title.trim(), filters: filtersFromForm(form) });
  };

  return (
    <form className="widget-editor" aria-label={name} onSubmit={submit} noValidate>
      <div className="filter-fields">
        <Field label="Widget title" hint="Leave empty to name it by what it shows." problem={problem || undefined}>
          {(props) => <input {...props} type="text" maxLength={DASHBOARD_LIMITS.title} autoComplete="off" value={title} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <Field label="Group by">
          {(props) => <Choices {...props} choices={WIDGET_TYPES} value={type} onChoose={setType} />}
        </Field>
      </div>
      <FilterFields value={form} onChange={setForm} queues={queues} users={users} />
      <div className="form-actions">
        <button type="submit">{submitText}</button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
