import { AppError, forbidden, invalid, notFound } from '@tracker/kit';

/** Retry-After of the 503 answers, in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** Every refusal of the statistics context. Hidden objects answer exactly like missing ones. */
export const statisticsErrors = {
  /** Unreadable and nonexistent queues in a body are the same 403, so existence does not leak. */
  queueNotAccessible: (path: string) => forbidden(`A queue named in ${path} does not exist or is not readable by you.`),
  dashboardNotFound: () => notFound('The dashboard'),
  ownerOnly: () => forbidden('Only the owner of a dashboard may change it.'),
  /** A limit of the workspace, not of this body: reported on the body as a whole. */
  tooManyDashboards: (max: number) =>
    invalid(
      [{ path: '(body)', message: `a workspace holds at most ${max} dashboards, and this one is full` }],
      `A workspace holds at most ${max} dashboards. Replace one of them (PUT /api/v1/dashboards/{dashboard_id}) instead.`,
    ),
  /** The replica not built yet, or a dependency of it away (README: Rebuilding the replica). */
  unavailable: (why: string) =>
    new AppError('statistics_unavailable', `Statistics are temporarily unavailable (${why}). Retry later.`, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    }),
};
