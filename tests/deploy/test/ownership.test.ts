import fs from 'node:fs';
import path from 'node:path';

/** Each service ships on its own: an owning team, a changelog, a version its image is tagged with. */
const ROOT = path.resolve(__dirname, '../../..');
const dirs = (parent: string) => fs.readdirSync(path.join(ROOT, parent)).filter((d) => fs.existsSync(path.join(ROOT, parent, d, 'package.json')));
const owners = new Map(
  fs
    .readFileSync(path.join(ROOT, 'CODEOWNERS'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/))
    .map(([pattern, ...teams]) => [pattern!, teams]),
);

test.each([...dirs('services').map((d) => `services/${d}`), ...dirs('libs').map((d) => `libs/${d}`)])('%s has an owning team in CODEOWNERS', (dir) => {
  expect(owners.get(`/${dir}/`)).toEqual([expect.stringMatching(/^@tracker\/[a-z-]+$/)]);
});

test.each(dirs('services'))('services/%s has a changelog whose newest entry is its package version, with build, test and image scripts', (service) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8'));
  const changelog = fs.readFileSync(path.join(ROOT, 'services', service, 'CHANGELOG.md'), 'utf8');
  expect(/^## (\S+)/m.exec(changelog)?.[1]).toBe(pkg.version);
  expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['build', 'test', 'image', 'start']));
});
