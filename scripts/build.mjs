#!/usr/bin/env node
// Compiles each service to plain JavaScript: `node scripts/build.mjs [service...]` (all seven
// when none is named) writes services/<name>/dist/, one CommonJS file per entry point with
// every import bundled in (the workspace libs, which ship TypeScript sources, and the
// packages from the npm registry alike), not minified, and a source map: with
// NODE_OPTIONS=--enable-source-maps stack traces name the TypeScript lines.
//
// Production (`pnpm start`, the images) runs these files with plain node; development and
// the tests keep running the sources through tsx and @swc/jest. esbuild strips types
// without checking them: `pnpm typecheck` (tsc) is the check, as for the tests.
//
// The web service's dist/ also holds its app, dist/public: the pages built by Vite
// (services/web/build-app.mjs), with their brotli and gzip forms, which its server sends.
import { build } from 'esbuild';
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Entry points per service (paths under src/): the server, and the operator commands. */
export const ENTRY_POINTS = {
  gateway: ['main.ts'],
  access: ['main.ts', 'cli/main.ts'],
  issues: ['main.ts'],
  statistics: ['main.ts', 'cli/rebuild.ts'],
  agent: ['main.ts'],
  notifications: ['main.ts'],
  web: ['main.ts'],
};

/** Builds written into the service's dist beside its server (only the web service has one: its app). */
const EXTRA_STEPS = {
  web: async (dir, outdir) => {
    const { buildApp } = await import(pathToFileURL(path.join(dir, 'build-app.mjs')).href);
    await buildApp(path.join(outdir, 'public'));
  },
};

export async function buildService(name) {
  const dir = path.join(root, 'services', name);
  const outdir = path.join(dir, 'dist');
  // Built beside, then swapped in: a process started meanwhile never sees half a folder.
  const building = `${outdir}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  await build({
    entryPoints: ENTRY_POINTS[name].map((entry) => path.join(dir, 'src', entry)),
    outbase: path.join(dir, 'src'),
    outdir: building,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    // Optional native bindings that packages load only if installed (pg's pg-native);
    // left as runtime requires, which those packages wrap in try/catch. Argon2 is a
    // prebuilt native addon that picks its binary at run time: required from the
    // service's node_modules (a production dependency, so images carry it).
    external: ['pg-native', '@node-rs/argon2'],
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await EXTRA_STEPS[name]?.(dir, building);
  rmSync(outdir, { recursive: true, force: true });
  renameSync(building, outdir);
  return outdir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !(name in ENTRY_POINTS));
  if (unknown.length) {
    process.stderr.write(`build: unknown service ${unknown.join(', ')} (one of ${Object.keys(ENTRY_POINTS).join(', ')})\n`);
    process.exit(64);
  }
  for (const name of names.length ? names : Object.keys(ENTRY_POINTS)) {
    if (!existsSync(path.join(root, 'services', name, 'src'))) continue;
    const started = Date.now();
    await buildService(name);
    process.stdout.write(`build: services/${name}/dist (${Date.now() - started} ms)\n`);
  }
}
