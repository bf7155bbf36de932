/**
 * B4, the search (POST /api/v1/issues/search, text and two filters) one request at a time,
 * against EXPLAIN ANALYZE of its statement, the service called directly and the floor.
 */
import { Client } from 'pg';
import { toSearchCriteria } from '@tracker/contracts';
import { PRINCIPAL_HEADER } from '@tracker/kit';
import { searchSql } from '@tracker/issues/statements';
import { startFloorChain } from '../floors';
import { asPg, keepAlivePoster, msOf, takingTurns } from '../one-at-a-time';
import { EXPLAINS, listsFor } from '../rows';
import { say, type Bench } from '../run';
import { SCHEMAS, WORDS } from '../seed';
import { median, percentile } from '../stats';

async function explainMs(db: Client, sql: { sql: string; values: unknown[] }): Promise<number> {
  const res = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.sql}`, sql.values as unknown[]);
  const plan = res.rows[0]['QUERY PLAN'][0];
  return plan['Planning Time'] + plan['Execution Time'];
}

export async function b4(bench: Bench) {
  const { system, cleanups, row } = bench;
  const filters = { search: WORDS[17]!, priority: 'high', category: 'open' } as const;
  // The floor (floor-server.ts search behind its proxy): the search's round trips, statement
  // and JSON through two bare node:http hops, with none of the project's handling.
  const floor = await startFloorChain(system, 'search', [bench.databaseUrl, SCHEMAS.issues, system.env.REDIS_URL!, String(system.seeded.workspaceId), String(system.seeded.userId)], cleanups);
  const criteria = toSearchCriteria(filters as never, { workspaceId: system.seeded.workspaceId, userId: system.seeded.userId }, null, new Date());
  // Every statement and request bounded: a hung service or query fails the run, never stalls it.
  const db = new Client({ connectionString: bench.databaseUrl, statement_timeout: 60_000 });
  const searchPath = '/api/v1/issues/search';
  const body = JSON.stringify(filters);
  const { post, close } = keepAlivePoster('B4', body);
  const query = asPg(searchSql(criteria));
  // What each kind of request measures: the API through the gateway, the service called
  // directly, the floor chain, EXPLAIN ANALYZE (leaves out sending the rows) and the rows
  // fetched by node-postgres as the service fetches them (Postgres's output, the transfer,
  // the driver's parsing).
  const api = post(`${system.gateway.url}${searchPath}`, { authorization: `Bearer ${system.seeded.token}` });
  const floored = post(`${floor.proxy}${searchPath}`, {});
  // Each kind answers its ms (EXPLAIN: Postgres's own planning and execution).
  const kinds = {
    api: () => msOf(api),
    // The ticket is made before the clock starts: the gateway's work, not the service's.
    direct: () => msOf(post(`${system.issues.url}${searchPath}`, { [PRINCIPAL_HEADER]: system.ticket('issues', 'POST', searchPath, body) })),
    floor: () => msOf(floored),
    sql: () => explainMs(db, query),
    fetched: () => msOf(() => db.query(query.sql, query.values)),
  };
  type Kind = keyof typeof kinds;
  const order = Object.keys(kinds) as Kind[];
  const [p95s, p50s] = [listsFor(order), listsFor(order)];
  let matched = 0;
  try {
    await db.connect();
    await db.query(`SET search_path TO ${SCHEMAS.issues}`);
    // Before any load: the API and the floor answer the same issues, or the floor is not one.
    const ids = async (answer: Promise<Buffer>) => (JSON.parse((await answer).toString('utf8')) as Array<{ id: number }>).map((i) => i.id);
    const [apiIds, floorIds] = [await ids(api()), await ids(floored())];
    if (apiIds.join() !== floorIds.join()) throw new Error('B4: the floor found other issues than the API');
    matched = apiIds.length;
    for (let run = 0; run < bench.runs; run++) {
      const times = await takingTurns(kinds, bench.seconds * 2500);
      for (const kind of order) {
        p95s[kind].push(percentile(times[kind], 95));
        p50s[kind].push(percentile(times[kind], 50));
      }
      say(`B4 run ${run + 1}: API p95 ${p95s.api.at(-1)!.toFixed(1)} ms, SQL p95 ${p95s.sql.at(-1)!.toFixed(1)} ms (${times.api.length} rounds)`);
    }
  } finally {
    close();
    await db.end().catch(() => undefined);
  }
  const [apiP95, direct, sqlP95, fetchedP95, floorP95] = [p95s.api, p95s.direct, p95s.sql, p95s.fetched, p95s.floor];
  const sql = median(sqlP95);
  row({
    scenario: `B4 search text + 2 filters (${bench.issues / 1000}k)`,
    metric: 'p95 ms (1 conn.)',
    runs: apiP95,
    ceilingName: 'EXPLAIN ANALYZE p95 ms',
    ceiling: sql,
    target: '≤ SQL + 5 ms',
    met: (v) => v <= sql + 5,
    note: `${matched} matches; p50 ms: ${order.map((k) => `${k} ${median(p50s[k]).toFixed(1)}`).join(', ')}`,
  });
  row({ scenario: `B4 search, service direct (${bench.issues / 1000}k)`, metric: 'p95 ms (1 conn.)', runs: direct, ceilingName: 'EXPLAIN ANALYZE p95 ms', ceiling: sql, ratio: null, target: '(locates the gap)', met: () => null });
  row({
    scenario: `B4 search, floor: node:http proxy and service, Redis, the statement (${bench.issues / 1000}k)`,
    metric: 'p95 ms (1 conn.)',
    runs: floorP95,
    ceilingName: 'EXPLAIN ANALYZE p95 ms',
    ceiling: sql,
    ratio: null,
    target: EXPLAINS,
    met: () => null,
    note: `SQL + ${(median(floorP95) - sql).toFixed(1)} ms`,
  });
  row({ scenario: `B4 search, floor: its rows fetched by node-postgres (${bench.issues / 1000}k)`, metric: 'p95 ms (1 conn.)', runs: fetchedP95, ceilingName: 'EXPLAIN ANALYZE p95 ms', ceiling: sql, ratio: null, target: EXPLAINS, met: () => null });
}

