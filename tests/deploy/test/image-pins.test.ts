import fs from 'node:fs';
import path from 'node:path';
import { rawCompose, ROOT } from './compose-file';
import { containersOf, kustomize } from './kustomize';

/**
 * Every image made elsewhere is pinned by the digest of its multi-platform index, with its
 * tag kept for the reader (`name:tag@sha256:<64 hex>`): in docker-compose.yml (Postgres,
 * Redis, RabbitMQ) and in deploy/Dockerfile's FROM lines (Node). Pulling by digest gets
 * exactly the image that was reviewed, whatever the tag points to later. Tracker's own
 * images (built from deploy/Dockerfile, `tracker-<service>`) carry a version tag instead.
 * deploy/README.md, "Images", says how to move a pin.
 */
const PINNED = /^(?:[a-z0-9.-]+(?::\d+)?\/)?[a-z0-9._/-]+:[\w][\w.-]{0,127}@sha256:[0-9a-f]{64}$/;
const OWN = /^tracker-(gateway|access|issues|statistics|agent|notifications|web)(:|$)/;

describe('third-party images are pinned by digest', () => {
  const services = Object.entries<any>(rawCompose().services);

  test('docker-compose.yml: every image not built here is name:tag@sha256:<digest>', () => {
    const thirdParty = services.filter(([, s]) => !s.build);
    expect(thirdParty.map(([name]) => name).sort()).toEqual(['postgres', 'rabbitmq', 'redis']);
    for (const [name, s] of thirdParty) expect([name, s.image]).toEqual([name, expect.stringMatching(PINNED)]);
    // What is built here is Tracker's own image, never a third-party one under its name.
    for (const [name, s] of services.filter(([, s]) => s.build)) expect([name, s.image]).toEqual([name, expect.stringMatching(OWN)]);
  });

  test('deploy/Dockerfile: every FROM that is not a stage of the file is name:tag@sha256:<digest>', () => {
    const lines = fs
      .readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8')
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const args = new Map<string, string>();
    const stages = new Set<string>();
    const bases: string[] = [];
    for (const line of lines) {
      const [keyword, ...rest] = line.split(/\s+/);
      if (keyword!.toUpperCase() === 'ARG' && bases.length === 0) {
        const [name, value = ''] = rest.join(' ').split('=');
        args.set(name!, value);
      }
      if (keyword!.toUpperCase() === 'FROM') {
        const [image, as, stage] = rest.filter((word) => !word.startsWith('--platform='));
        const expanded = image!.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args.get(name) ?? '');
        if (!stages.has(expanded)) bases.push(expanded);
        if (as?.toUpperCase() === 'AS') stages.add(stage!);
      }
    }
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(PINNED);
    expect(bases.every((base) => base.startsWith('node:'))).toBe(true);
  });

  test('the Kubernetes manifests run only Tracker`s own images', () => {
    for (const dir of ['base', 'overlays/production']) {
      for (const workload of kustomize(path.join(ROOT, 'deploy/k8s', dir))) {
        for (const container of containersOf(workload)) {
          expect([dir, workload.metadata.name, container.image]).toEqual([dir, workload.metadata.name, expect.stringMatching(/(^|\/)(tracker-)?(gateway|access|issues|statistics|agent|notifications|web):[\w.-]+$/)]);
        }
      }
    }
  });

  test('the check is real: a tag alone, a digest alone, a short digest are refused', () => {
    for (const bad of ['redis:7-alpine', `redis@sha256:${'a'.repeat(64)}`, `redis:7-alpine@sha256:${'a'.repeat(63)}`, `redis:7-alpine@sha256:${'A'.repeat(64)}`]) expect(bad).not.toMatch(PINNED);
    expect(`registry.example.com:5000/library/redis:7.4-alpine@sha256:${'0'.repeat(64)}`).toMatch(PINNED);
  });
});
