/**
 * B5, statistics: one widget's request (POST /api/v1/statistics) against its statement run
 * directly, and a dashboard of 30 widgets drawn in one request, 6 at a time and one by one.
 */
import { Client } from 'pg';
import { createTrackerClient, dashboardStatistics } from '@tracker/client';
import { DashboardInput, toSearchCriteria } from '@tracker/contracts';
import { PRINCIPAL_HEADER } from '@tracker/kit';
import { statisticsSql } from '@tracker/statistics/statements';
import { cpuTally } from '../cpu';
import { startFloorChain, startFloorProxy } from '../floors';
import { asPg, keepAlivePoster, msOf, takingTurns } from '../one-at-a-time';
import { added, EXPLAINS, listsFor } from '../rows';
import { say, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { median, percentile } from '../stats';

export async function b5(bench: Bench) {
  const { system, cleanups, row } = bench;
  const q = system.queueIds;
  // 2000 issues: two queues of 1000 (at 100k); widgets vary the filters as dashboards do.
  const perQueue = Math.ceil(system.seeded.issues / q.length);
  const twoThousand = q.slice(0, Math.max(1, Math.round(2000 / perQueue)));
  const widgets = Array.from({ length: 30 }, (_, i) => {
    const filters: Record<string, unknown> = { queue_ids: twoThousand };
    if (i % 3 === 1) filters.priority = ['low', 'normal', 'high', 'critical'][i % 4];
    if (i % 3 === 2) filters.category = ['open', 'progress', 'done'][i % 3];
    if (i % 5 === 4) filters.label = `l${i % 10}`;
    return filters;
  });
  const db = new Client({ connectionString: bench.databaseUrl });
  await db.connect();
  await db.query(`SET search_path TO ${SCHEMAS.statistics}`);
  const caller = { workspaceId: system.seeded.workspaceId, userId: system.seeded.userId };
  const sqls = widgets.map((w) => asPg(statisticsSql(toSearchCriteria(w as never, caller, w.queue_ids as number[], new Date()))));
  const dash = { api: [] as number[], fanOut: [] as number[], once: [] as number[], floor: [] as number[], sql: [] as number[] };
  // What a widget's request costs in CPU, process by process, in the dashboard and its floor.
  const cpu = cpuTally(bench.cpuScope);
  // The floor (floor-server.ts statistics behind its proxy): the same request's round trips
  // and statement with none of the project's handling, through two hops as via the gateway.
  const floor = await startFloorChain(system, 'statistics', [bench.databaseUrl, SCHEMAS.statistics, system.env.REDIS_URL!, String(caller.workspaceId), String(caller.userId)], cleanups);
  const floorUrl = `${floor.proxy}/api/v1/statistics`;
  // The same floor service behind the frameworks' hop instead (express with http-proxy-middleware, as B1's).
  const frameworksUrl = `${await startFloorProxy(system, 'express-proxy', floor.service, cleanups)}/api/v1/statistics`;
  // One request (the first widget's), measured as B4's search is: one request of each kind
  // per round, in turn, one connection each: through the gateway, the service called
  // directly (the ticket made before the clock starts), the floor through bare hops, the
  // floor's service behind the frameworks' hop, that service called directly (so each
  // hop is measured against its own service: ours, the bare one, the frameworks'), and the
  // statement run directly.
  const statisticsPath = '/api/v1/statistics';
  const singleBody = JSON.stringify(widgets[0]);
  const { post, close } = keepAlivePoster('B5', singleBody);
  const single = {
    api: () => msOf(post(`${system.gateway.url}${statisticsPath}`, { authorization: `Bearer ${system.seeded.token}` })),
    direct: () => msOf(post(`${system.statistics.url}${statisticsPath}`, { [PRINCIPAL_HEADER]: system.ticket('statistics', 'POST', statisticsPath, singleBody) })),
    floor: () => msOf(post(floorUrl, {})),
    frameworks: () => msOf(post(frameworksUrl, {})),
    floorDirect: () => msOf(post(`${floor.service}${statisticsPath}`, {})),
    sql: () => msOf(() => db.query(sqls[0]!.sql, sqls[0]!.values)),
  };
  const singleKinds = Object.keys(single) as Array<keyof typeof single>;
  const one = listsFor(singleKinds);
  // A client draws a dashboard's widgets at once: the typed client's dashboardStatistics, 6
  // requests at a time; the floor's dashboard is drawn by the same function (its token unused).
  const client = createTrackerClient({ baseUrl: system.gateway.url, token: system.seeded.token });
  const floorClient = createTrackerClient({ baseUrl: floor.proxy, token: system.seeded.token });
  const dashboardWidgets = widgets.map((filters) => ({ filters: filters as never }));
  const floorDashboard = () => dashboardStatistics(floorClient, dashboardWidgets);
  // The same widgets saved as a dashboard, drawn by one request (GET /dashboards/{id}/statistics),
  // where the contract lets them make one: with 5,000 queues, 2000 issues span 100 queues,
  // and 30 widgets naming them pass the ids a dashboard may hold in all.
  const dashboard = { name: 'B5 dashboard', widgets: widgets.map((filters) => ({ type: 'stats' as const, filters: filters as never })) };
  const fits = DashboardInput.safeParse(dashboard);
  const saved = fits.success ? await savedDashboard(client, dashboard) : null;
  if (!fits.success) say(`B5: the widgets make no dashboard (${fits.error.issues[0]?.message}): none drawn in one request at this size`);
  const drawnAtOnce = async (dashboardId: number) => {
    const answer = await client.GET('/api/v1/dashboards/{dashboard_id}/statistics', { params: { path: { dashboard_id: dashboardId } } });
    if (!answer.data) throw new Error(`GET /dashboards/${dashboardId}/statistics answered ${answer.response.status}`);
    return answer.data;
  };
  try {
    // Once each before measuring (an error answer throws); the one request must answer what the widgets' requests do.
    const withoutAsOf = (results: Array<{ as_of: string | null }>) => results.map(({ as_of: _asOf, ...figures }) => figures);
    const oneByOne = await dashboardStatistics(client, dashboardWidgets);
    if (saved !== null && JSON.stringify(withoutAsOf((await drawnAtOnce(saved)).widgets)) !== JSON.stringify(withoutAsOf(oneByOne))) {
      throw new Error('B5: the dashboard drawn in one request differs from its widgets drawn one by one');
    }
    await floorDashboard();
    for (let run = 0; run < bench.runs; run++) {
      const times = await takingTurns(single, bench.seconds * 2000);
      for (const kind of singleKinds) one[kind].push(percentile(times[kind], 50));
      // The dashboard: its 30 widgets one after another, as one client renders it.
      const dApi: number[] = [];
      const dFanOut: number[] = [];
      const dOnce: number[] = [];
      const dFloor: number[] = [];
      const dSql: number[] = [];
      for (let k = 0; k < (bench.quick ? 3 : 5); k++) {
        let t = performance.now();
        await dashboardStatistics(client, dashboardWidgets, { concurrency: 1 });
        dApi.push(performance.now() - t);
        t = performance.now();
        await cpu.measure('dashboard', () => dashboardStatistics(client, dashboardWidgets), () => widgets.length);
        dFanOut.push(performance.now() - t);
        if (saved !== null) {
          t = performance.now();
          await cpu.measure('dashboard, one request', () => drawnAtOnce(saved), () => widgets.length);
          dOnce.push(performance.now() - t);
        }
        t = performance.now();
        await cpu.measure('floor dashboard', floorDashboard, () => widgets.length);
        dFloor.push(performance.now() - t);
        t = performance.now();
        for (const s of sqls) await db.query(s.sql, s.values);
        dSql.push(performance.now() - t);
      }
      dash.api.push(median(dApi));
      dash.fanOut.push(median(dFanOut));
      if (saved !== null) dash.once.push(median(dOnce));
      dash.floor.push(median(dFloor));
      dash.sql.push(median(dSql));
      say(`B5 run ${run + 1}: one ${one.api.at(-1)!.toFixed(1)} (floor ${one.floor.at(-1)!.toFixed(1)}, behind express ${one.frameworks.at(-1)!.toFixed(1)}) vs ${one.sql.at(-1)!.toFixed(1)} ms; dashboard ${dash.once.at(-1)?.toFixed(0) ?? '–'} in one request, ${dash.fanOut.at(-1)!.toFixed(0)} 6 at a time (floor ${dash.floor.at(-1)!.toFixed(0)}, one by one ${dash.api.at(-1)!.toFixed(0)}) vs ${dash.sql.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    close();
    await db.end();
  }
  row({ scenario: 'B5 statistics, 2000 issues', metric: 'p50 ms', runs: one.api, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: '≤ 1.3×', met: (_v, r) => r! <= 1.3 });
  row({ scenario: 'B5 statistics, service direct', metric: 'p50 ms', runs: one.direct, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: '(locates the gap)', met: () => null });
  row({ scenario: 'B5 statistics, floor: node:http proxy and service, Redis, the statement', metric: 'p50 ms', runs: one.floor, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: EXPLAINS, met: () => null });
  row({ scenario: 'B5 statistics, floor: its service behind express with http-proxy-middleware', metric: 'p50 ms', runs: one.frameworks, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: EXPLAINS, met: () => null });
  // The hops, each over its own service called directly in the same rounds.
  const hopNote = (via: number[], direct: number[]) => added(via, direct).map((h) => h.toFixed(2)).join(' / ');
  row({
    scenario: 'B5 statistics, the gateway hop',
    metric: 'added p50 ms (1 conn.)',
    runs: added(one.api, one.direct),
    ceilingName: 'the frameworks\' hop, added p50 ms',
    ceiling: median(added(one.frameworks, one.floorDirect)),
    target: EXPLAINS,
    met: () => null,
    note: `the bare hop ${hopNote(one.floor, one.floorDirect)}; the frameworks' hop ${hopNote(one.frameworks, one.floorDirect)}; the floor's service called directly ${one.floorDirect.map((v) => v.toFixed(2)).join(' / ')} ms`,
  });
  if (saved !== null) row({ scenario: 'B5 dashboard, 30 widgets, one request (GET /dashboards/{id}/statistics)', metric: 'ms per dashboard', runs: dash.once, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '≤ 1.3×', met: (_v, r) => r! <= 1.3, note: `CPU ms per widget ${median(cpu.runs('dashboard, one request')).toFixed(2)}: ${cpu.note('dashboard, one request')}` });
  row({ scenario: 'B5 dashboard, 30 widgets, 6 at a time (typed client)', metric: 'ms per dashboard', runs: dash.fanOut, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '(a client\'s fan-out of POST /statistics)', met: () => null, note: `CPU ms per widget ${median(cpu.runs('dashboard')).toFixed(2)}: ${cpu.note('dashboard')}` });
  row({ scenario: 'B5 dashboard, floor, 6 at a time', metric: 'ms per dashboard', runs: dash.floor, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: EXPLAINS, met: () => null, note: `CPU ms per widget ${median(cpu.runs('floor dashboard')).toFixed(2)}: ${cpu.note('floor dashboard')}` });
  row({ scenario: 'B5 dashboard, 30 widgets, one after another', metric: 'ms per dashboard', runs: dash.api, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '(as before: a client drawing one widget at a time)', met: () => null });
}

/** The id of the bench workspace's dashboard named as `body` is, saved (or replaced) with its widgets. */
async function savedDashboard(client: ReturnType<typeof createTrackerClient>, body: { name: string; widgets: Array<{ type: 'stats'; filters: never }> }): Promise<number> {
  const listed = await client.GET('/api/v1/dashboards');
  const existing = listed.data?.find((d) => d.name === body.name);
  const answer = existing
    ? await client.PUT('/api/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: existing.id } }, body })
    : await client.POST('/api/v1/dashboards', { body });
  if (!answer.data) throw new Error(`saving the ${body.name} answered ${answer.response.status}`);
  return answer.data.id;
}

