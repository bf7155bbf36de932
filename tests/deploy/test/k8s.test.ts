import fs from 'node:fs';
import path from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { containersOf, kustomize, type K8sObject } from './kustomize';

/**
 * The Kubernetes manifests as `kubectl apply -k` would send them (base and production
 * overlay, rendered by ./kustomize.ts), validated against the Kubernetes API schemas
 * (kubernetes-models), plus what the deployment promises: probes, resources, HPA, PDB,
 * Service per service, the migration Job, config by reference, and the network policy
 * (ingress for every service, egress for the agent).
 */
const ROOT = path.resolve(__dirname, '../../..');
const K8S = path.join(ROOT, 'deploy/k8s');
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent'] as const;
const PORTS = { gateway: 8080, access: 8081, issues: 8082, statistics: 8083, agent: 8084 };

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Service': Service,
};

const renders = { base: kustomize(path.join(K8S, 'base')), production: kustomize(path.join(K8S, 'overlays/production')) };
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const version = (service: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8')).version as string;

describe.each(Object.entries(renders))('the %s render', (_name, objects) => {
  test('every object is valid against the Kubernetes schema of its kind, and names are unique per kind', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind} (${object.metadata.name}): add it to MODELS`);
      expect(() => new Model(object).validate()).not.toThrow();
    }
    const ids = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test.each(SERVICES)('%s has a Deployment with probes, resources and hardening, a Service, an HPA and a PDB that match it', (service) => {
    const deployment = find(objects, 'Deployment', service)!;
    expect(deployment).toBeDefined();
    // The autoscaler owns the replica count.
    expect(deployment.spec.replicas).toBeUndefined();
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': service });
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(pod.automountServiceAccountToken).toBe(false);
    const [container] = pod.containers;
    expect(container.image).toMatch(new RegExp(`(^|/)(tracker-)?${service}:`));
    expect(container.ports).toEqual(
      expect.arrayContaining([
        { name: 'http', containerPort: PORTS[service] },
        { name: 'metrics', containerPort: 9464 },
      ]),
    );
    expect(container.env).toContainEqual({ name: 'PORT', value: String(PORTS[service]) });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    for (const kind of ['requests', 'limits']) expect(Object.keys(container.resources[kind]).sort()).toEqual(['cpu', 'memory']);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464' });

    const svc = find(objects, 'Service', service)!;
    expect(svc.spec.ports).toEqual([{ name: 'http', port: PORTS[service], targetPort: 'http' }]);
    for (const [key, value] of Object.entries(svc.spec.selector)) expect(podLabels[key]).toBe(value);

    const hpa = find(objects, 'HorizontalPodAutoscaler', service)!;
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: service });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);

    const pdb = find(objects, 'PodDisruptionBudget', service)!;
    expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    for (const [key, value] of Object.entries(pdb.spec.selector.matchLabels)) expect(podLabels[key]).toBe(value);
  });

  test('config and secrets are referenced, never inlined: one generated ConfigMap, the Secret created outside git', () => {
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
    expect(configMaps.map((c) => c.metadata.name)).toEqual([expect.stringMatching(/^tracker-config-[0-9a-f]{10}$/)]);
    expect(configMaps[0]!.data).toMatchObject({
      NODE_ENV: 'production',
      METRICS_PORT: '9464',
      ACCESS_URL: 'http://access:8081',
      ISSUES_URL: 'http://issues:8082',
      STATISTICS_URL: 'http://statistics:8083',
      AGENT_URL: 'http://agent:8084',
    });
    expect(Object.keys(configMaps[0]!.data)).not.toEqual(expect.arrayContaining(['INTERNAL_SECRET']));
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const workload of objects.filter((o) => containersOf(o).length > 0)) {
      for (const container of containersOf(workload)) {
        expect(container.envFrom).toEqual([{ configMapRef: { name: configMaps[0]!.metadata.name } }, { secretRef: { name: 'tracker-secrets' } }]);
        for (const env of container.env ?? []) expect(env.name).not.toMatch(/SECRET|PASSWORD|_URL$/);
      }
    }
  });

  test('the migration Job migrates each service with its own image, in order, as non-root', () => {
    const job = find(objects, 'Job', 'migrate')!;
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const steps = containersOf(job);
    expect(steps.map((c) => c.name)).toEqual(['migrate-access', 'migrate-issues', 'migrate-statistics']);
    for (const step of steps) {
      const service = step.name.replace('migrate-', '');
      expect(step.image).toMatch(new RegExp(`(^|/)(tracker-)?${service}:`));
      expect(step.command).toEqual(['node_modules/.bin/prisma-offline', 'deploy']);
    }
  });
});

describe('the production overlay', () => {
  const objects = renders.production;

  test('puts everything in the tracker namespace with the registry images at each service`s own version', () => {
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) expect(o.metadata.namespace).toBe('tracker');
    for (const service of SERVICES) {
      const deployment = find(objects, 'Deployment', service)!;
      expect(deployment.spec.template.spec.containers[0].image).toBe(`registry.example.com/tracker/${service}:${version(service)}`);
    }
    const job = find(objects, 'Job', 'migrate')!;
    for (const step of containersOf(job)) expect(step.image).toBe(`registry.example.com/tracker/${step.name.replace('migrate-', '')}:${version(step.name.replace('migrate-', ''))}`);
  });

  test('network policy: a default deny, the gateway open to all on http only, the others only to their callers, metrics only to Prometheus', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 || Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0);
    expect(deny?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });

    const rulesFor = (service: string) => policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === service).flatMap((p) => p.spec.ingress ?? []);
    const callers: Record<string, string[] | 'anyone'> = {
      gateway: 'anyone',
      access: ['gateway', 'issues', 'statistics', 'agent'],
      issues: ['gateway', 'statistics', 'agent'],
      statistics: ['gateway', 'agent'],
      agent: ['gateway'],
    };
    for (const service of SERVICES) {
      const rules = rulesFor(service);
      const http = rules.filter((r: any) => r.ports.some((p: any) => p.port === 'http'));
      const metrics = rules.filter((r: any) => r.ports.some((p: any) => p.port === 'metrics'));
      expect(rules.length).toBe(http.length + metrics.length);
      // http: from anywhere for the gateway alone; else from named pods of this namespace.
      if (callers[service] === 'anyone') {
        expect(http).toEqual([{ ports: [{ port: 'http' }] }]);
      } else {
        const from = http.flatMap((r: any) => r.from);
        for (const peer of from) expect(Object.keys(peer)).toEqual(['podSelector']);
        expect(from.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/name']).sort()).toEqual([...(callers[service] as string[])].sort());
      }
      // metrics: Prometheus in the monitoring namespace, nobody else.
      expect(metrics).toEqual([
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }],
          ports: [{ port: 'metrics' }],
        },
      ]);
    }
  });

  test('network policy: egress is restricted for the agent alone, to the HTTP ports of access, issues and statistics and to DNS', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const egress = policies.filter((p) => p.spec.policyTypes.includes('Egress'));
    expect(egress.map((p) => p.spec.podSelector)).toEqual([{ matchLabels: { 'app.kubernetes.io/name': 'agent' } }]);
    const rules = egress[0]!.spec.egress;
    const dns = rules.filter((r: any) => r.ports.every((p: any) => p.port === 53));
    const http = rules.filter((r: any) => !dns.includes(r));
    for (const rule of http) {
      expect(rule.ports).toEqual([{ port: 'http' }]);
      for (const peer of rule.to) expect(Object.keys(peer)).toEqual(['podSelector']);
    }
    expect(http.flatMap((r: any) => r.to.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/name'])).sort()).toEqual(['access', 'issues', 'statistics']);
    expect(dns).toHaveLength(1);
    expect(dns[0].to).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }]);
    expect(dns[0].ports.map((p: any) => p.protocol).sort()).toEqual(['TCP', 'UDP']);
  });

  test('scales wider than the base and gives pods more headroom', () => {
    for (const service of SERVICES) {
      const hpa = find(objects, 'HorizontalPodAutoscaler', service)!;
      expect(hpa.spec.minReplicas).toBeGreaterThan(find(renders.base, 'HorizontalPodAutoscaler', service)!.spec.minReplicas);
      expect(find(objects, 'Deployment', service)!.spec.template.spec.containers[0].resources.limits.memory).toBe('1Gi');
    }
  });
});

describe('the validator itself', () => {
  test('rejects a Deployment without a selector and a port that is not a number', () => {
    const broken = structuredClone(find(renders.base, 'Deployment', 'gateway')!);
    delete broken.spec.selector;
    expect(() => new Deployment(broken).validate()).toThrow(/selector/);
    const badPort = structuredClone(find(renders.base, 'Deployment', 'gateway')!);
    badPort.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    expect(() => new Deployment(badPort).validate()).toThrow(/containerPort/);
  });
});
