import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readYamlDocuments } from './kustomize';

/**
 * docker-compose.yml as Docker Compose reads it: YAML merge keys, then interpolation of
 * `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`, `${VAR?message}` and
 * `$$` against an environment. A `?` variable that is missing (`:?`: or empty) fails the
 * whole file, as `docker compose` refuses to start, naming every such variable.
 */
export const ROOT = path.resolve(__dirname, '../../..');
export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

export class MissingVariables extends Error {
  constructor(readonly names: string[]) {
    super(`required variables missing: ${names.join(', ')}`);
  }
}

export function interpolate(value: unknown, env: Record<string, string>): unknown {
  const missing = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(REFERENCE, (whole, name: string, op: string | undefined, rest: string) => {
        if (whole === '$$') return '$';
        const set = env[name];
        if (op === ':-') return set ? set : rest;
        if (op === '-') return set ?? rest;
        if (op === ':?' && !set) missing.add(name);
        if (op === '?' && set === undefined) missing.add(name);
        return set ?? '';
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  const result = walk(value);
  if (missing.size > 0) throw new MissingVariables([...missing].sort());
  return result;
}

/** Every `${...}` reference in a parsed (not interpolated) value: name, operator, default or message. */
export function references(value: unknown): Array<{ name: string; op: string; rest: string }> {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].filter((m) => m[0] !== '$$').map((m) => ({ name: m[1]!, op: m[2] ?? '', rest: m[3] ?? '' }));
  if (Array.isArray(value)) return value.flatMap(references);
  if (value && typeof value === 'object') return Object.values(value).flatMap(references);
  return [];
}

/** The file parsed with merge keys resolved, before interpolation. */
export const rawCompose = (): any => readYamlDocuments(COMPOSE_FILE)[0];

/** Runs scripts/internal-keys.cjs and parses its .env output (comments skipped). */
export function generatedEnv(args: string[] = []): Record<string, string> {
  const text = execFileSync(process.execPath, [path.join(ROOT, 'scripts/internal-keys.cjs'), ...args], { encoding: 'utf8' });
  return parseEnvFile(text);
}

export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`not NAME=value: ${line}`);
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}
