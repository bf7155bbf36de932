import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { parseAllDocuments } from 'yaml';

/**
 * deploy/k8s rendered as `kubectl apply -k` renders it: by kustomize itself
 * (`kubectl kustomize <dir>`, kustomize 5.0 or newer), parsed from its multi-document
 * YAML. kubectl comes with scripts/bootstrap.sh (docs/testing.md); without it, or with an
 * older kustomize, a render fails saying so, never passes unchecked.
 */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, any>;

/** The oldest kustomize the manifests are checked with (its major version). */
export const MIN_KUSTOMIZE_MAJOR = 5;

/** The documents of a YAML text (merge keys applied), empty ones left out; a syntax error throws, naming `source`. */
export function parseYamlDocuments(text: string, source: string): any[] {
  return parseAllDocuments(text, { merge: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]!.message}`);
      return doc.toJS();
    })
    .filter((doc) => doc !== null && doc !== undefined);
}

export const readYamlDocuments = (file: string): any[] => parseYamlDocuments(fs.readFileSync(file, 'utf8'), file);

/** `Kustomize Version: v5.5.0` of `kubectl version --client`, as [major, minor, patch]; throws with what to do when there is none. */
export function kustomizeVersion(): [number, number, number] {
  const out = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) {
    throw new Error(`kubectl is needed to render deploy/k8s (its kustomize, ${MIN_KUSTOMIZE_MAJOR}.0 or newer) and could not be run: ${out.error?.message ?? out.stderr.trim()}. Install it with scripts/bootstrap.sh (docs/testing.md).`);
  }
  const found = /Kustomize Version:\s*v?(\d+)\.(\d+)\.(\d+)/.exec(out.stdout);
  if (!found) throw new Error(`kubectl version --client names no Kustomize version (got: ${out.stdout.trim()}); kustomize ${MIN_KUSTOMIZE_MAJOR}.0 or newer is needed.`);
  return [Number(found[1]), Number(found[2]), Number(found[3])];
}

let checked = false;

/** The objects `kubectl kustomize dir` renders, in its order. */
export function kustomize(dir: string): K8sObject[] {
  if (!checked) {
    const version = kustomizeVersion();
    if (version[0] < MIN_KUSTOMIZE_MAJOR) throw new Error(`kubectl's kustomize is ${version.join('.')}; ${MIN_KUSTOMIZE_MAJOR}.0 or newer is needed to render deploy/k8s. Update kubectl (scripts/bootstrap.sh, docs/testing.md).`);
    checked = true;
  }
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.error || out.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${out.error?.message ?? out.stderr.trim()}`);
  // A warning (a deprecated field, a patch that matched nothing) is a finding too, not noise.
  if (out.stderr.trim()) throw new Error(`kubectl kustomize ${dir} warned: ${out.stderr.trim()}`);
  return parseYamlDocuments(out.stdout, `kubectl kustomize ${dir}`) as K8sObject[];
}

export function containersOf(o: K8sObject): any[] {
  const pod = o.spec?.template?.spec;
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
}
