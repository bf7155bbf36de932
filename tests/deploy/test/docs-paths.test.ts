import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every repository path a Markdown file names exists, so the docs cannot drift from the
 * code they describe. A path counts when it is
 * - a relative link target, `[text](deploy/README.md#anchor)`: relative to the file's folder;
 * - an inline code span that is one path, `libs/kit/src/postgres.ts` or `k8s/base/`: with a
 *   `/`, and either a trailing `/` or a file name with a known extension; it may be
 *   relative to the repository root or to the file's folder (a service README names its
 *   own `src/routes/json.ts`); elsewhere, a span starting with a folder of the service
 *   layout speaks of that layout and must exist in at least one service (`src/main.ts` in
 *   `services/<name>/`, `data-access/outbox.ts` in `services/<name>/src/`);
 * - an inline code span that is only a file name with a source extension (`store.ts`):
 *   some file of the repository has that name.
 * `{a,b}` stands for each of its members; `*` and `<placeholder>` for any one path segment
 * (at least one file must match). URL paths (`/api/v1/issues`), URLs and code blocks are not
 * paths of the repository and are not read, nor are paths git ignores (what a run writes,
 * such as `bench/results/run-*.json`).
 */
const ROOT = path.resolve(__dirname, '../../..');

const PATH_EXTENSIONS = ['ts', 'mts', 'js', 'mjs', 'cjs', 'json', 'md', 'yaml', 'yml', 'sql', 'prisma', 'txt', 'sh', 'toml', 'conf'];
const EXTENSIONLESS_FILES = ['Dockerfile', 'CODEOWNERS'];
/** A bare file name is checked only with these: a `package.json` or `.env` is everywhere or nowhere. */
const FILE_NAME_EXTENSIONS = ['ts', 'mts', 'mjs', 'cjs', 'sh', 'prisma'];

/**
 * Spans that look like repository paths and are not. Keep it short: each entry says why.
 * Keys are `<markdown file>: <span>`.
 */
const NOT_REPOSITORY_PATHS = new Set<string>([
  // Paths inside the built image (deploy/Dockerfile's runtime stage), not in the repository.
  'deploy/README.md: /app/src/main.ts',
]);

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.split('/').includes('node_modules'));
const fileNames = new Set(tracked.filter((f) => fs.existsSync(path.join(ROOT, f))).map((f) => path.posix.basename(f)));
// Tracked and new (not yet committed) files alike, so a new page is checked before its first commit.
const markdownFiles = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.split('/').includes('node_modules') && fs.existsSync(path.join(ROOT, f)));

/** The text outside fenced code blocks (commands, JSON and diagrams are not path mentions). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** `a/{b,c}.ts` is `a/b.ts` and `a/c.ts`. */
function expandBraces(span: string): string[] {
  const match = /\{([^{}]*)\}/.exec(span);
  if (!match) return [span];
  return match[1]!.split(',').flatMap((member) => expandBraces(span.slice(0, match.index) + member + span.slice(match.index + match[0].length)));
}

function looksLikePath(span: string): boolean {
  if (span.includes('/')) {
    if (span.startsWith('/') || span.includes('://') || /\s/.test(span) || span.startsWith('@') || span.includes('…')) return false;
    if (!/^[\w.@*{},<>\/-]+$/.test(span)) return false;
    if (span.endsWith('/')) return true;
    const name = span.split('/').pop()!;
    return EXTENSIONLESS_FILES.includes(name) || PATH_EXTENSIONS.some((ext) => name.endsWith(`.${ext}`));
  }
  return /^[\w.-]+$/.test(span) && FILE_NAME_EXTENSIONS.some((ext) => span.endsWith(`.${ext}`)) && !span.startsWith('.');
}

/** The folders of every service's layout, named without the service in general docs. */
const SERVICE_LAYOUT = /^(src|test|prisma)\//;
const SERVICE_SOURCE_LAYOUT = /^(routes|domain|data-access|consumers|cli)\//;

/** A layout path (`src/main.ts`, `domain/guards.ts`) that some service has. */
function inSomeService(candidate: string): boolean {
  if (SERVICE_LAYOUT.test(candidate)) return exists(`services/*/${candidate}`);
  if (SERVICE_SOURCE_LAYOUT.test(candidate)) return exists(`services/*/src/${candidate}`);
  return false;
}

/** Output of a run (bench results, generated clients): git ignores it, so a fresh clone has none. */
function ignoredByGit(relative: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', relative], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

/** Does a path (relative to the repository root, maybe with `*` in its segments or a trailing `/`) name something? */
function exists(relative: string): boolean {
  const normalized = path.posix.normalize(relative);
  if (normalized.startsWith('..')) return false;
  const segments = normalized.split('/').filter(Boolean);
  const walk = (dir: string, rest: string[]): boolean => {
    if (rest.length === 0) return true;
    const [segment, ...more] = rest as [string, ...string[]];
    if (!segment.includes('*')) return fs.existsSync(path.join(dir, segment)) && walk(path.join(dir, segment), more);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
    const pattern = new RegExp(`^${segment.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
    return fs
      .readdirSync(dir)
      .filter((entry) => entry !== 'node_modules' && pattern.test(entry))
      .some((entry) => walk(path.join(dir, entry), more));
  };
  return walk(ROOT, segments);
}

interface Mention {
  file: string;
  line: number;
  target: string;
}

function mentions(file: string): { links: Mention[]; spans: Mention[] } {
  const lines = prose(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const links: Mention[] = [];
  const spans: Mention[] = [];
  lines.forEach((content, n) => {
    for (const m of content.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!.replace(/#.*$/, '');
      if (!target || /^[a-z][a-z+.-]*:/i.test(target)) continue;
      links.push({ file, line: n + 1, target });
    }
    // Code spans; `:12` or `:12-20` after a file name is a line, not part of the path.
    for (const m of content.matchAll(/(`+)([^`]+?)\1/g)) {
      const span = m[2]!.trim().replace(/:\d+(-\d+)?$/, '');
      if (looksLikePath(span)) spans.push({ file, line: n + 1, target: span });
    }
  });
  return { links, spans };
}

function missing({ file, target }: Mention, kind: 'link' | 'span'): boolean {
  const folder = path.posix.dirname(file);
  if (kind === 'link') return !exists(path.posix.join(folder, decodeURI(target)));
  if (NOT_REPOSITORY_PATHS.has(`${file}: ${target}`)) return false;
  return expandBraces(target.replace(/<[^<>]+>/g, '*')).some((candidate) => {
    if (!candidate.includes('/')) return !fileNames.has(candidate);
    const fromFolder = path.posix.join(folder, candidate);
    if (exists(candidate) || exists(fromFolder)) return false;
    if (!file.startsWith('services/') && inSomeService(candidate)) return false;
    return !ignoredByGit(candidate) && !ignoredByGit(fromFolder);
  });
}

describe('the paths the Markdown files name', () => {
  test('are read from every tracked Markdown file', () => {
    const docs = ['architecture', 'configuration', 'decisions', 'security', 'testing'].map((name) => `docs/${name}.md`);
    const serviceReadmes = fs
      .readdirSync(path.join(ROOT, 'services'))
      .map((name) => `services/${name}/README.md`)
      .filter((file) => fs.existsSync(path.join(ROOT, file)));
    expect(serviceReadmes.length).toBeGreaterThanOrEqual(7);
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', ...docs, ...serviceReadmes]));
  });

  test.each(markdownFiles)('%s names only paths that exist', (file) => {
    const { links, spans } = mentions(file);
    const broken = [
      ...links.filter((m) => missing(m, 'link')).map((m) => `${m.file}:${m.line}: link to ${m.target}`),
      ...spans.filter((m) => missing(m, 'span')).map((m) => `${m.file}:${m.line}: \`${m.target}\``),
    ];
    expect(broken).toEqual([]);
  });
});

describe('the path rule', () => {
  test('takes paths and leaves URL paths, packages, media types and commands alone', () => {
    expect(['libs/kit/src/postgres.ts', 'k8s/base/', 'services/*/test/*.rules.test.ts', 'store.ts', 'deploy/Dockerfile'].filter(looksLikePath)).toHaveLength(5);
    expect(['/api/v1/issues', '@tracker/contracts', 'application/problem+json', 'npx jest services/issues', 'redis://127.0.0.1:6379', 'package.json'].filter(looksLikePath)).toEqual([]);
  });

  test('sees a renamed file as missing', () => {
    expect(missing({ file: 'README.md', line: 1, target: 'libs/kit/src/postgres.ts' }, 'span')).toBe(false);
    expect(missing({ file: 'README.md', line: 1, target: 'libs/kit/src/postgresql.ts' }, 'span')).toBe(true);
    expect(missing({ file: 'services/issues/README.md', line: 1, target: 'src/routes/conditional.ts' }, 'span')).toBe(false);
    expect(missing({ file: 'services/issues/README.md', line: 1, target: 'src/domain/access-policy.ts' }, 'span')).toBe(true);
    expect(missing({ file: 'README.md', line: 1, target: 'libs/contracts/src/{queues,issues}.ts' }, 'span')).toBe(false);
    expect(missing({ file: 'README.md', line: 1, target: 'libs/contracts/src/{queues,tickets}.ts' }, 'span')).toBe(true);
    expect(missing({ file: 'libs/events/README.md', line: 1, target: 'data-access/outbox.repository.ts' }, 'span')).toBe(false);
    expect(missing({ file: 'libs/events/README.md', line: 1, target: 'data-access/outbox-rows.ts' }, 'span')).toBe(true);
    expect(missing({ file: 'README.md', line: 1, target: 'deploy/README.md' }, 'link')).toBe(false);
    expect(missing({ file: 'README.md', line: 1, target: 'deploy/READ-ME.md' }, 'link')).toBe(true);
  });
});
