import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * A small kustomize, enough for deploy/k8s: resources (files and directories), components,
 * labels (with includeTemplates), configMapGenerator (literals; hash-suffixed name and the
 * references to it renamed), images, namespace, and JSON 6902 patches with a target
 * (kind, name, labelSelector). Anything else in a kustomization fails the render, so a
 * feature added to the manifests without support here cannot pass unchecked.
 * The hash suffix is not kustomize's own (only its presence matters here).
 */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, any>;

const KNOWN_KEYS = new Set(['apiVersion', 'kind', 'resources', 'components', 'labels', 'configMapGenerator', 'images', 'namespace', 'patches']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass']);

export function readYamlDocuments(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'), { merge: true }).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    return doc.toJS();
  }).filter((doc) => doc !== null && doc !== undefined);
}

export function kustomize(dir: string): K8sObject[] {
  const kustomization = readYamlDocuments(path.join(dir, 'kustomization.yaml'))[0];
  for (const key of Object.keys(kustomization)) {
    if (!KNOWN_KEYS.has(key)) throw new Error(`${dir}/kustomization.yaml: "${key}" is not supported by the test renderer`);
  }
  let objects: K8sObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const target = path.join(dir, resource);
    objects.push(...(fs.statSync(target).isDirectory() ? kustomize(target) : (readYamlDocuments(target) as K8sObject[])));
  }
  for (const component of kustomization.components ?? []) {
    const componentDir = path.join(dir, component);
    const own = readYamlDocuments(path.join(componentDir, 'kustomization.yaml'))[0];
    if (own.kind !== 'Component') throw new Error(`${componentDir} is not a Component`);
    objects.push(...kustomize(componentDir));
  }

  const renames = new Map<string, string>();
  for (const generator of kustomization.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const literal of generator.literals ?? []) {
      const at = literal.indexOf('=');
      data[literal.slice(0, at)] = literal.slice(at + 1);
    }
    if (generator.behavior === 'merge') {
      const existing = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.annotations?.['test.kustomize/generated'] === generator.name);
      if (!existing) throw new Error(`configMapGenerator ${generator.name}: nothing to merge into`);
      Object.assign(existing.data, data);
      continue;
    }
    const name = `${generator.name}-${createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 10)}`;
    renames.set(generator.name, name);
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, annotations: { 'test.kustomize/generated': generator.name } }, data });
  }
  if (renames.size > 0) objects = objects.map((o) => renameConfigMaps(o, renames));

  for (const patch of kustomization.patches ?? []) {
    const targets = objects.filter((o) => matches(o, patch.target ?? {}));
    if (targets.length === 0) throw new Error(`${dir}: a patch matches nothing (${JSON.stringify(patch.target)})`);
    const ops = readYamlString(patch.patch);
    for (const target of targets) for (const op of ops) applyOp(target, op);
  }
  for (const { pairs, includeTemplates } of kustomization.labels ?? []) {
    for (const o of objects) {
      o.metadata.labels = { ...o.metadata.labels, ...pairs };
      const template = o.spec?.template;
      if (includeTemplates && template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...pairs } };
    }
  }
  for (const image of kustomization.images ?? []) {
    for (const container of objects.flatMap(containersOf)) {
      const [name, tag] = splitImage(container.image);
      if (name !== image.name) continue;
      container.image = `${image.newName ?? name}:${image.newTag ?? tag ?? 'latest'}`;
    }
  }
  if (kustomization.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = kustomization.namespace;
  }
  return objects;
}

export function containersOf(o: K8sObject): any[] {
  const pod = o.spec?.template?.spec;
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
}

function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
}

function readYamlString(text: string): any[] {
  return parseAllDocuments(text).flatMap((doc) => doc.toJS());
}

function matches(o: K8sObject, target: { kind?: string; name?: string; labelSelector?: string }): boolean {
  if (target.kind && o.kind !== target.kind) return false;
  if (target.name && o.metadata.name !== target.name) return false;
  if (target.labelSelector) {
    for (const pair of target.labelSelector.split(',')) {
      const [key, value] = pair.split('=');
      if (o.metadata.labels?.[key!] !== value) return false;
    }
  }
  return true;
}

function applyOp(target: any, op: { op: string; path: string; value?: unknown }): void {
  const keys = op.path.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop()!;
  let parent = target;
  for (const key of keys) {
    parent = parent?.[key];
    if (parent === undefined) throw new Error(`patch path ${op.path} does not exist`);
  }
  if (op.op === 'replace') {
    if (!(last in parent)) throw new Error(`patch replace: ${op.path} does not exist`);
    parent[last] = structuredClone(op.value);
  } else if (op.op === 'add') {
    if (Array.isArray(parent)) parent.splice(last === '-' ? parent.length : Number(last), 0, structuredClone(op.value));
    else parent[last] = structuredClone(op.value);
  } else if (op.op === 'remove') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else {
    throw new Error(`patch op ${op.op} is not supported by the test renderer`);
  }
}

/** envFrom/env/volume references to a generated ConfigMap follow its hashed name. */
function renameConfigMaps(o: K8sObject, renames: Map<string, string>): K8sObject {
  const pod = o.spec?.template?.spec;
  if (!pod) return o;
  for (const container of containersOf(o)) {
    for (const from of container.envFrom ?? []) if (from.configMapRef && renames.has(from.configMapRef.name)) from.configMapRef.name = renames.get(from.configMapRef.name);
    for (const env of container.env ?? []) {
      const ref = env.valueFrom?.configMapKeyRef;
      if (ref && renames.has(ref.name)) ref.name = renames.get(ref.name);
    }
  }
  for (const volume of pod.volumes ?? []) if (volume.configMap && renames.has(volume.configMap.name)) volume.configMap.name = renames.get(volume.configMap.name);
  return o;
}
