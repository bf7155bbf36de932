import fs from 'node:fs';
import path from 'node:path';
import { createTestSchema, type TestSchema } from '@tracker/testing';
import { eventSourceOf, OUTBOX_TABLE } from '../src';
import { outboxDatabase } from './support';

// Every service that publishes events keeps its own outbox_events table through its Prisma
// migrations; the relay relies on all of them being exactly OUTBOX_TABLE (columns, unique
// event id, the partial index on unpublished rows). This applies each publisher's
// migrations to a fresh schema and compares the result with OUTBOX_TABLE.sql applied alone.

const SERVICES_DIR = path.join(__dirname, '../../../services');
const migrationsDirOf = (service: string) => path.join(SERVICES_DIR, service, 'prisma', 'migrations');

/** The services whose migrations create an outbox table. */
function servicesWithAnOutbox(): string[] {
  return fs
    .readdirSync(SERVICES_DIR)
    .filter((service) => fs.existsSync(migrationsDirOf(service)))
    .filter((service) =>
      fs
        .readdirSync(migrationsDirOf(service))
        .filter((name) => /^\d+_/.test(name))
        .some((name) => fs.readFileSync(path.join(migrationsDirOf(service), name, 'migration.sql'), 'utf8').includes(OUTBOX_TABLE.name)),
    )
    .sort();
}

/** The table as the catalog describes it, with the test schema's name taken out. */
async function outboxShape(db: TestSchema) {
  const unqualified = (text: string | null) => text && text.split(`"${db.schema}".`).join('').split(`${db.schema}.`).join('');
  const columns = await db.query<{ column_default: string | null }>(
    `SELECT column_name, data_type, datetime_precision, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY column_name`,
    [db.schema, OUTBOX_TABLE.name],
  );
  const indexes = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname`,
    [db.schema, OUTBOX_TABLE.name],
  );
  return {
    columns: columns.map((c) => ({ ...c, column_default: unqualified(c.column_default) })),
    indexes: indexes.map((i) => ({ ...i, indexdef: unqualified(i.indexdef) })),
  };
}

const publishers = servicesWithAnOutbox();

test('every service that publishes events has an outbox, and only those', () => {
  expect(publishers).toEqual([...new Set(Object.values(eventSourceOf))].sort());
});

describe.each(publishers)('the outbox of %s', (service) => {
  test('its migrations produce exactly OUTBOX_TABLE: columns and indexes, the partial one included', async () => {
    const defined = await outboxDatabase('outbox-defined');
    const migrated = await createTestSchema(`outbox-${service}`, migrationsDirOf(service));
    try {
      const expected = await outboxShape(defined.db);
      expect(expected.indexes.map((i) => i.indexname)).toContain('outbox_events_unpublished_idx');
      expect(await outboxShape(migrated)).toEqual(expected);
    } finally {
      await migrated.drop();
      await defined.close();
    }
  });
});
