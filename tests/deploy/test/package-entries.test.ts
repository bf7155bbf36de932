import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Each package shows a public face and is reached only through it:
 * - every lib declares `exports` (its main entry, `./src/index.ts`, and a named sub-entry
 *   only where one is needed), and each sub-entry also in `typesVersions`, since the
 *   repository's TypeScript resolves as node10 (`moduleResolution: node`) and reads no
 *   `exports`;
 * - no package names a file that does not exist (`main`, `types`, `exports` targets);
 * - no code imports a workspace package by a path it does not export (a deep import of its
 *   `src/` folder), nor by a relative path into another package's `src/`
 *   (`../../libs/x/src/y`, `../../../services/y/src/z`, a jest config's
 *   `require.resolve('../support/src/…')`): what another package needs is exported by name.
 */
const ROOT = path.resolve(__dirname, '../../..');

interface Manifest {
  name: string;
  main?: string;
  types?: string;
  exports?: Record<string, string>;
  typesVersions?: Record<string, Record<string, string[]>>;
}

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.split('/').includes('node_modules') && fs.existsSync(path.join(ROOT, f)));

const manifests = new Map<string, Manifest>(
  files.filter((f) => path.posix.basename(f) === 'package.json').map((f) => [path.posix.dirname(f), JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8'))]),
);
const byName = new Map([...manifests].map(([dir, pkg]) => [pkg.name, { dir, pkg }]));
const libs = [...manifests.keys()].filter((dir) => dir.startsWith('libs/'));

test('the libs are found', () => {
  expect(libs.length).toBeGreaterThanOrEqual(7);
});

test.each(libs)('%s declares its public entries in exports, each sub-entry in typesVersions too', (dir) => {
  const pkg = manifests.get(dir)!;
  expect(pkg.exports?.['.']).toBe('./src/index.ts');
  if (pkg.main) expect(`./${pkg.main}`).toBe(pkg.exports?.['.']);
  if (pkg.types) expect(`./${pkg.types}`).toBe(pkg.exports?.['.']);
  for (const [entry, target] of Object.entries(pkg.exports ?? {})) {
    if (entry === '.' || entry === './package.json') continue;
    expect([entry, pkg.typesVersions?.['*']?.[entry.slice(2)]]).toEqual([entry, [target.slice(2)]]);
  }
});

test.each([...manifests.keys()])('%s/package.json names only files that exist', (dir) => {
  const pkg = manifests.get(dir)!;
  const named = [pkg.main, pkg.types, ...Object.values(pkg.exports ?? {}), ...Object.values(pkg.typesVersions?.['*'] ?? {}).flat()].filter((f): f is string => typeof f === 'string');
  expect(named.filter((f) => !fs.existsSync(path.join(ROOT, dir, f)))).toEqual([]);
});

test('no code imports a workspace package by a path it does not export', () => {
  const code = files.filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(f));
  const specifier = /(['"`])(@tracker\/[a-z0-9-]+)\/([^'"`\s]+)\1/g;
  const deep: string[] = [];
  for (const file of code) {
    for (const [, , name, subpath] of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(specifier)) {
      const exported = byName.get(name!)?.pkg.exports;
      if (!exported || !(`./${subpath}` in exported)) deep.push(`${file}: ${name}/${subpath}`);
    }
  }
  expect(deep).toEqual([]);
});

/** The package a repository file belongs to: the nearest folder above it with a package.json ('.' for the root). */
function packageOf(file: string): string {
  for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
    if (manifests.has(dir)) return dir;
    if (dir === '.' || dir === '/') return '.';
  }
}

/** Relative module specifiers of a source: imports, exports from, require(), import() and require.resolve(). */
const RELATIVE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|^\s*import\s+)(['"`])(\.{1,2}\/[^'"`\s]+)\1/gm;

/** `file`'s relative specifiers that lead into the `src/` of a package other than its own. */
function crossings(file: string, source: string): string[] {
  const own = packageOf(file);
  return [...source.matchAll(RELATIVE_SPECIFIER)].flatMap(([, , specifier]) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!));
    const pkg = packageOf(target);
    const inSrc = (pkg === '.' ? target : target.slice(pkg.length + 1)).split('/')[0] === 'src';
    return pkg !== own && inSrc ? [`${file}: ${specifier}`] : [];
  });
}

test('no code reaches into another package\'s src by a relative path', () => {
  const code = files.filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(f));
  expect(code.flatMap((file) => crossings(file, fs.readFileSync(path.join(ROOT, file), 'utf8')))).toEqual([]);
});

test('a relative path into another package\'s src is caught, one into the own package or out of src is not', () => {
  // Quoted by a function, so this file's own source holds none of these specifiers.
  const q = (specifier: string) => `'${specifier}'`;
  expect(crossings('tests/deploy/test/keys.test.ts', `import { url } from ${q('../../../libs/kit/src/config')};`)).toHaveLength(1);
  expect(crossings('tests/security/test/seed-script.ts', `import { addUser } from ${q('../../../services/access/src/domain/add-user.use-case')};`)).toHaveLength(1);
  expect(crossings('tests/e2e/jest.config.js', `globalSetup: require.resolve(${q('../support/src/global-setup.ts')})`)).toHaveLength(1);
  expect(crossings('jest.preset.js', `globalSetup: require.resolve(${q('./libs/testing/src/global-setup.ts')})`)).toHaveLength(1);
  expect(crossings('libs/kit/test/app.test.ts', `import { createApp } from ${q('../src/app')};`)).toEqual([]);
  expect(crossings('services/web/app/src/ui.tsx', `import { PAGES } from ${q('../../src/pages')};`)).toEqual([]);
  expect(crossings('tests/e2e-replicated/jest.config.js', `require(${q('../../jest.preset')})`)).toEqual([]);
});
