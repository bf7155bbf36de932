import fs from 'node:fs';
import path from 'node:path';

/**
 * deploy/Dockerfile, read statically (no engine needed): every base image is pinned by
 * digest, Node is a supported LTS (>= 22), and the final stage holds the one service with
 * its production dependencies only, as a non-root user.
 */
const ROOT = path.resolve(__dirname, '../../..');
const text = fs.readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');

/** Instructions with their continuation lines joined, comments dropped. */
const instructions = text
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
  });

/** ARGs declared before the first FROM, with their defaults: what FROM lines may use. */
const globalArgs = new Map<string, string>();
for (const { keyword, args } of instructions) {
  if (keyword === 'FROM') break;
  if (keyword === 'ARG') {
    const [name, value = ''] = args.split('=');
    globalArgs.set(name!, value);
  }
}
const expand = (value: string) => value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => globalArgs.get(name) ?? '');

interface Stage {
  name: string;
  base: string;
  body: Array<{ keyword: string; args: string }>;
}
const stages: Stage[] = [];
for (const instruction of instructions) {
  if (instruction.keyword === 'FROM') {
    const [image, as, name] = instruction.args.replace(/--platform=\S+\s+/, '').split(/\s+/);
    stages.push({ base: expand(image!), name: as?.toUpperCase() === 'AS' ? name! : String(stages.length), body: [] });
  } else if (stages.length > 0) {
    stages.at(-1)!.body.push(instruction);
  }
}
const stageNames = new Set(stages.map((s) => s.name));
const external = stages.filter((s) => !stageNames.has(s.base));
const runtime = stages.at(-1)!;

test('every base image is pinned by digest', () => {
  expect(external.length).toBeGreaterThan(0);
  for (const stage of external) expect([stage.name, stage.base]).toEqual([stage.name, expect.stringMatching(/^[a-z0-9./-]+(:[\w.-]+)?@sha256:[0-9a-f]{64}$/)]);
});

test('the Node image is a supported LTS, 22 or newer', () => {
  for (const stage of external) {
    const tag = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)/.exec(stage.base);
    expect([stage.name, Number(tag?.[1])]).toEqual([stage.name, expect.any(Number)]);
    expect(Number(tag![1])).toBeGreaterThanOrEqual(22);
    expect(Number(tag![1]) % 2).toBe(0); // even majors are the LTS lines
  }
});

test('the final stage starts from the plain Node image and takes only the production bundle', () => {
  expect(external).toContain(runtime);
  const copies = runtime.body.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
  expect(copies.map((c) => c.args)).toEqual(['--from=bundle /out ./']);
  const run = runtime.body.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  // Nothing is installed in it; its package managers are removed.
  expect(run).not.toMatch(/\b(pnpm|npm|yarn|npx|corepack)\s+(install|i|add|ci|fetch|deploy)\b/);
  expect(run).toMatch(/rm -rf \/usr\/local\/lib\/node_modules\/npm/);
  expect(runtime.body).toContainEqual({ keyword: 'USER', args: '10001:10001' });
});

test('the bundle holds production dependencies only, and the build fails if a devDependency got in', () => {
  const bundle = stages.find((s) => s.name === 'bundle')!;
  const run = bundle.body.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  expect(run).toMatch(/pnpm --filter "@tracker\/\$\{SERVICE\}" deploy --prod /);
  expect(run).toMatch(/devDependencies/);
  expect(run).toMatch(/dev dependencies in the image/);
  expect(run).toMatch(/process\.exit\(1\)/);
});

test('images still migrate with prisma-offline and run the compiled service, without tsx', () => {
  // node itself in exec form (no wrapper process: SIGTERM reaches the service), on the bundle.
  expect(runtime.body.filter((i) => i.keyword === 'CMD')).toEqual([{ keyword: 'CMD', args: '["node", "dist/main.js"]' }]);
  for (const service of ['access', 'issues', 'statistics', 'notifications']) {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8'));
    expect([service, pkg.dependencies?.['@tracker/prisma-offline']]).toEqual([service, 'workspace:*']);
  }
  // tsx runs the sources in development and the tests only: never a production dependency.
  for (const service of ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications', 'web']) {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8'));
    expect([service, pkg.dependencies?.tsx, pkg.devDependencies?.tsx]).toEqual([service, undefined, expect.any(String)]);
  }
});

test('the bundle stage compiles the service and copies its dist into /out', () => {
  const bundle = stages.find((s) => s.name === 'bundle')!;
  const run = bundle.body.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  const at = (pattern: RegExp) => pattern.exec(run)?.index ?? -1;
  const build = at(/\bnode scripts\/build\.mjs "\$\{?SERVICE\}?"/);
  const deploy = at(/\bpnpm --filter "@tracker\/\$\{SERVICE\}" deploy\b/);
  const copy = at(/\bcp -R "services\/\$\{?SERVICE\}?\/dist" \/out\/dist\b/);
  const check = at(/\btest -f \/out\/dist\/main\.js\b/);
  expect([build, deploy, copy, check].every((index) => index >= 0)).toBe(true);
  // Built, then deployed (pnpm deploy leaves dist out), then copied in and checked.
  expect(build).toBeLessThan(copy);
  expect(deploy).toBeLessThan(copy);
  expect(copy).toBeLessThan(check);
  expect(run).not.toMatch(/\btsx\b/);
  // Nothing in the final stage runs TypeScript.
  expect(runtime.body.map((i) => i.args).join('\n')).not.toMatch(/\btsx\b|\.ts\b/);
});
