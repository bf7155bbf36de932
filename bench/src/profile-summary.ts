/**
 * Where a service's CPU goes, from a BENCH_CPU_PROFILE .cpuprofile:
 *   pnpm --dir bench exec tsx src/profile-summary.ts results/profiles/<service>/<file> [from-to seconds]
 * Busy time only (idle left out), optionally within a window of the profile (seconds from
 * its start; the profile covers start-up and the other scenarios' idle time too). Each
 * sample is charged to the nearest package or source file on its stack, so Node's own
 * work (sockets, HTTP parsing, streams) counts for the library that asked for it; stacks
 * with no such frame are "(node) ..." by their outermost Node module. Then the busiest
 * functions by self time. Frames in a compiled service (services/<name>/dist/*.js) are
 * first mapped through its source map to the package or source file they came from.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PACKAGE = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)/;
const SOURCE = /((?:services|libs|bench)\/[\w-]+\/src\/.*)/;

/** A frame's owner: an npm package (the MCP SDK by file), a source file of the repository, or null for Node and V8. */
export function ownerOf(url: string): string | null {
  if (!url || url.startsWith('node:')) return null;
  const pkg = PACKAGE.exec(url);
  if (pkg) return pkg[1] === '@modelcontextprotocol/sdk' ? `sdk ${pkg[2]!.replace(/^dist\/(cjs|esm)\//, '')}` : pkg[1]!;
  return SOURCE.exec(url)?.[1] ?? url;
}

/** Points frames of bundled files (with a .map beside them) at their original files and lines. */
export function mapBundledFrames(profile: Profile): Profile {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(file, fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : null);
    }
    return maps.get(file)!;
  };
  for (const node of profile.nodes) {
    const { url, lineNumber, columnNumber } = node.callFrame;
    if (!/^file:.*\/dist\/.*\.js$/.test(url)) continue;
    const file = fileURLToPath(url);
    const entry = mapOf(file)?.findEntry(lineNumber, columnNumber ?? 0) as { originalSource?: string; originalLine?: number } | undefined;
    if (!entry?.originalSource) continue;
    const original = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
    node.callFrame = { ...node.callFrame, url: `file://${original}`, lineNumber: entry.originalLine ?? lineNumber };
  }
  return profile;
}

export function summarize(profile: Profile, fromS = 0, toS = Infinity) {
  mapBundledFrames(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owners = new Map<number, string>();
  const owner = (id: number): string => {
    const known = owners.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const { url, functionName } = n.callFrame;
    let o = ownerOf(url);
    if (!o && !url) o = /^\(.*\)$/.test(functionName) && !parent.has(id) ? functionName : null;
    if (!o) {
      const up = parent.get(id);
      const above = up === undefined ? '(root)' : owner(up);
      o = above === '(root)' || above.startsWith('(node)') ? (url ? `(node) ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}` : above) : above;
    }
    owners.set(id, o);
    return o;
  };
  const byOwner = new Map<string, number>();
  const bySelf = new Map<string, number>();
  let busy = 0;
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (at < fromS * 1e6 || at > toS * 1e6) continue;
    const n = byId.get(profile.samples[i]!)!;
    const { functionName, url, lineNumber } = n.callFrame;
    if (functionName === '(idle)') continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    const o = functionName === '(garbage collector)' || functionName === '(program)' ? functionName : owner(n.id);
    byOwner.set(o, (byOwner.get(o) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${ownerOf(url) ?? url.replace(/^node:/, '')}${url ? `:${lineNumber + 1}` : ''}`;
    bySelf.set(fn, (bySelf.get(fn) ?? 0) + us);
  }
  const top = (m: Map<string, number>, count: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, us]) => ({ name, share: us / busy }));
  return { busySeconds: busy / 1e6, owners: top(byOwner, 40), functions: top(bySelf, 25) };
}

if (require.main === module) {
  const [file, window] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [from-to seconds]');
  const [from, to] = (window ?? '').split('-').map(Number);
  const s = summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, from || 0, to || Infinity);
  const pct = (x: number) => `${(100 * x).toFixed(1).padStart(5)} %`;
  process.stdout.write(`busy ${s.busySeconds.toFixed(2)} s\n\nby nearest package or source file:\n`);
  for (const o of s.owners) process.stdout.write(`  ${pct(o.share)}  ${o.name}\n`);
  process.stdout.write('\nby function (self):\n');
  for (const f of s.functions) process.stdout.write(`  ${pct(f.share)}  ${f.name}\n`);
}
