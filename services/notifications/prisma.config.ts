// @prisma/config, not prisma/config (the same function): the image ships without the Prisma CLI.
import { defineConfig } from '@prisma/config';

// The CLI and tools/prisma-offline read this; the service itself builds its
// connection from its validated config (src/config.ts) with the same defaults.
const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tracker');
databaseUrl.searchParams.set('schema', process.env.DATABASE_SCHEMA ?? 'notifications');

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: databaseUrl.toString() },
});
