import { z } from 'zod';
import { Filters } from './filters';
import { Id, text } from './queues';

export const WIDGET_TYPES = ['stats', 'issues', 'statuses', 'queues', 'time', 'assignees'] as const;
export const WidgetType = z.enum(WIDGET_TYPES);
export type WidgetType = z.infer<typeof WidgetType>;

/** Limits of the spec (name, widgets) and where it is silent (title). */
export const DASHBOARD_LIMITS = { name: 500, widgets: 30, title: 200 } as const;

/**
 * A widget (spec: Widget). Absent `title` is "" and absent `filters` is the empty
 * filter (every field at its default), so each stored widget has the same shape.
 */
export const Widget = z.strictObject({
  type: WidgetType.meta({ description: 'What the widget shows.', examples: ['stats'] }),
  title: text(0, DASHBOARD_LIMITS.title).meta({ description: 'The widget title.', examples: ['Open bugs'] }).default(''),
  filters: Filters.prefault({}),
});
export type Widget = z.infer<typeof Widget>;

/** POST /dashboards and PUT /dashboards/{dashboard_id} body (spec: Dashboard). */
export const DashboardInput = z.strictObject({
  name: text(1, DASHBOARD_LIMITS.name).meta({ description: 'The dashboard name.', examples: ['Release 2.4'] }),
  widgets: z.array(Widget).max(DASHBOARD_LIMITS.widgets).meta({ description: `The widgets, at most ${DASHBOARD_LIMITS.widgets}.` }),
});
export type DashboardInput = z.infer<typeof DashboardInput>;

/** A dashboard as every /dashboards answer returns it. */
export const Dashboard = z.object({
  id: Id,
  workspace_id: Id,
  owner_id: Id,
  name: z.string(),
  widgets: z.array(Widget),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** Every queue id a dashboard's widget filters name, each once, ascending. */
export const queueIdsOf = (widgets: ReadonlyArray<{ filters?: { queue_ids?: number[] } }>): number[] =>
  [...new Set(widgets.flatMap((w) => w.filters?.queue_ids ?? []))].sort((a, b) => a - b);
