import { z } from 'zod';
import { Filters } from './filters';
import { Id, text } from './queues';

export const WIDGET_TYPES = ['stats', 'issues', 'statuses', 'queues', 'time', 'assignees'] as const;
export const WidgetType = z.enum(WIDGET_TYPES);
export type WidgetType = z.infer<typeof WidgetType>;

/**
 * Limits of a dashboard (name, widgets, and what they hold together: docs/decisions.md). Every member lists all the
 * dashboards of the workspace they may see: the totals bound one dashboard and
 * `perWorkspace` their number, so the largest GET /dashboards answer stays under 4.4 MB
 * (services/statistics/README.md, Limits).
 */
export const DASHBOARD_LIMITS = {
  name: 500,
  widgets: 30,
  title: 200,
  /** Ids named by all widget filters together (queue_ids, status_ids and assignee_ids). */
  ids: 1000,
  /** Characters of all widget titles, searches and labels together. */
  text: 4000,
  /** Dashboards of one workspace (there is no DELETE: replace one instead). */
  perWorkspace: 100,
} as const;

/**
 * A widget. Absent `title` is "" and absent `filters` is the empty
 * filter (every field at its default), so each stored widget has the same shape.
 */
export const Widget = z.strictObject({
  type: WidgetType.meta({
    description:
      'What the widget shows of the issues its filters select (the server stores it, clients draw it): `stats` (the statistics), `issues` (the issues, as search finds them), `statuses` (counts by status category), `queues` (counts by queue), `time` (estimated and recorded minutes) or `assignees` (counts by assignee).',
    examples: ['stats'],
  }),
  title: text(0, DASHBOARD_LIMITS.title).meta({ description: `The widget title, at most ${DASHBOARD_LIMITS.title} characters.`, examples: ['Open bugs'] }).default(''),
  filters: Filters.prefault({}).meta({ description: 'The filters selecting the issues the widget shows, as for search and statistics; absent: the empty filter (no filter).' }),
});
export type Widget = z.infer<typeof Widget>;

const countOf = (list: unknown) => (Array.isArray(list) ? list.length : 0);
const lengthOf = (value: unknown) => (typeof value === 'string' ? value.length : 0);

/** The totals over all widgets (the value may hold invalid widgets, each reported at its own path). */
const widgetTotals = (widgets: Array<{ title?: unknown; filters?: Record<string, unknown> }>) => ({
  ids: widgets.reduce((n, w) => n + countOf(w.filters?.queue_ids) + countOf(w.filters?.status_ids) + countOf(w.filters?.assignee_ids), 0),
  text: widgets.reduce((n, w) => n + lengthOf(w.title) + lengthOf(w.filters?.search) + lengthOf(w.filters?.label), 0),
});

const Widgets = z
  .array(Widget)
  .max(DASHBOARD_LIMITS.widgets)
  .superRefine((widgets, ctx) => {
    const totals = widgetTotals(widgets);
    if (totals.ids > DASHBOARD_LIMITS.ids) {
      ctx.addIssue({ code: 'custom', message: `the filters name ${totals.ids} ids in all; at most ${DASHBOARD_LIMITS.ids} are allowed` });
    }
    if (totals.text > DASHBOARD_LIMITS.text) {
      ctx.addIssue({ code: 'custom', message: `the titles, searches and labels hold ${totals.text} characters in all; at most ${DASHBOARD_LIMITS.text} are allowed` });
    }
  })
  .meta({
    description:
      `The widgets, at most ${DASHBOARD_LIMITS.widgets}. All their filters together name at most ${DASHBOARD_LIMITS.ids} ids ` +
      `(queue_ids, status_ids and assignee_ids), and all their titles, searches and labels together hold at most ${DASHBOARD_LIMITS.text} characters.`,
  });

/** POST /dashboards and PUT /dashboards/{dashboard_id} body. */
export const DashboardInput = z.strictObject({
  name: text(1, DASHBOARD_LIMITS.name).meta({ description: `The dashboard name, 1 to ${DASHBOARD_LIMITS.name} characters.`, examples: ['Release 2.4'] }),
  widgets: Widgets,
});
export type DashboardInput = z.infer<typeof DashboardInput>;

/** A dashboard as every /dashboards answer returns it. */
export const Dashboard = z.object({
  id: Id.meta({ description: 'The dashboard id.' }),
  workspace_id: Id.meta({ description: 'The workspace; every dashboard is shared with its members.' }),
  owner_id: Id.meta({ description: 'The user who created it, the only one who may replace it.' }),
  name: z.string().meta({ description: 'The dashboard name.' }),
  widgets: z.array(Widget).meta({ description: 'The widgets, in order, each with its defaults filled in (`title` `""`, absent filters the empty filter).' }),
  created_at: z.iso.datetime().meta({ description: 'When the dashboard was created (UTC).' }),
  updated_at: z.iso.datetime().meta({ description: 'When it was last replaced, or its creation (UTC).' }),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** Every queue id a dashboard's widget filters name, each once, ascending. */
export const queueIdsOf = (widgets: ReadonlyArray<{ filters?: { queue_ids?: number[] } }>): number[] =>
  [...new Set(widgets.flatMap((w) => w.filters?.queue_ids ?? []))].sort((a, b) => a - b);
