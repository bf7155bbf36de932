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
import { containersOf, kustomize, kustomizeVersion, MIN_KUSTOMIZE_MAJOR, type K8sObject } from './kustomize';

/**
 * The Kubernetes manifests as `kubectl apply -k` would send them (base and production
 * overlay, rendered by kustomize itself: ./kustomize.ts runs `kubectl kustomize`), validated against the Kubernetes API schemas
 * (kubernetes-models), plus what the deployment promises: probes, resources, HPA, PDB,
 * Service per service, the migration Job as the migrator, config by reference with one
 * Secret per workload that no other workload reads, and network policies in the base
 * that allow each component exactly the connections it needs, in and out.
 */
const ROOT = path.resolve(__dirname, '../../..');
const K8S = path.join(ROOT, 'deploy/k8s');
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications', 'web'] as const;
const PORTS = { gateway: 8080, access: 8081, issues: 8082, statistics: 8083, agent: 8084, notifications: 8086, web: 8085 };
/** The web service signs nothing and holds no credential: no trusted keys, no Secret. */
const WITHOUT_SECRETS: readonly string[] = ['web'];
const WORKLOADS = [...SERVICES, 'migrate'] as const;
/** kustomize's hash suffix: 10 characters of its own alphabet (hex with the vowels and look-alikes mapped away). */
const KUSTOMIZE_HASH = '[2456789bcdfghkmt]{10}';

/** Who may call whom on its HTTP port ('anyone' for the public gateway). */
const CALLERS: Record<string, string[] | 'anyone'> = {
  gateway: 'anyone',
  access: ['gateway', 'issues', 'statistics', 'agent', 'notifications'],
  issues: ['gateway', 'statistics', 'agent'],
  statistics: ['gateway', 'agent'],
  // The feed: forwarded by the gateway, and the agent's list_events.
  notifications: ['gateway', 'agent'],
  agent: ['gateway'],
  web: ['gateway'],
};
/** Everything each workload may reach: components by name, the infrastructure, the cluster DNS. */
const REACHES: Record<string, string[]> = {
  gateway: ['access', 'issues', 'statistics', 'agent', 'notifications', 'web', 'redis', 'dns'],
  web: [],
  agent: ['access', 'issues', 'statistics', 'notifications', 'redis', 'dns'],
  access: ['postgres', 'redis', 'rabbitmq', 'dns'],
  issues: ['access', 'postgres', 'redis', 'rabbitmq', 'dns'],
  statistics: ['access', 'issues', 'postgres', 'redis', 'rabbitmq', 'dns'],
  // The internet: webhook deliveries (services/notifications/README.md).
  notifications: ['access', 'postgres', 'redis', 'rabbitmq', 'dns', 'internet'],
  migrate: ['postgres', 'dns'],
};
const INFRA_PORTS: Record<number, string> = { 5432: 'postgres', 6379: 'redis', 5672: 'rabbitmq' };
/** The ranges an egress to the internet must leave out: the cluster's own networks, loopback, link-local (the cloud's metadata endpoint), CGNAT. */
const NOT_INTERNET = {
  '0.0.0.0/0': ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'],
  '::/0': ['::/8', 'fc00::/7', 'fe80::/10'],
} as Record<string, string[]>;

/** Does a NetworkPolicy's podSelector select the pods of `workload` (matchLabels and `In` expressions)? */
function selects(selector: any, workload: string): boolean {
  const labels: Record<string, string> = { 'app.kubernetes.io/name': workload, 'app.kubernetes.io/part-of': 'tracker' };
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator !== 'In') throw new Error(`selector operator ${e.operator} is not understood by this test`);
    if (!e.values.includes(labels[e.key])) return false;
  }
  return true;
}

/** What the egress rules of all policies let `workload` reach, by the classification of REACHES. */
function reachable(policies: K8sObject[], workload: string): string[] {
  const found = new Set<string>();
  for (const policy of policies.filter((p) => p.spec.policyTypes.includes('Egress') && selects(p.spec.podSelector, workload))) {
    for (const rule of policy.spec.egress ?? []) {
      expect([policy.metadata.name, Array.isArray(rule.to) && rule.to.length > 0, Array.isArray(rule.ports) && rule.ports.length > 0]).toEqual([policy.metadata.name, true, true]);
      for (const port of rule.ports) {
        if (port.port === 'http') {
          for (const peer of rule.to) {
            expect(Object.keys(peer)).toEqual(['podSelector']);
            found.add(peer.podSelector.matchLabels['app.kubernetes.io/name']);
          }
        } else if (port.port === 53) {
          expect(rule.to).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }]);
          found.add('dns');
        } else if (port.port === 80 || port.port === 443) {
          // The internet, on the web's ports only: every peer an address block minus the private and special ranges.
          expect([policy.metadata.name, port.protocol]).toEqual([policy.metadata.name, 'TCP']);
          for (const peer of rule.to) {
            expect(Object.keys(peer)).toEqual(['ipBlock']);
            expect(Object.keys(NOT_INTERNET)).toContain(peer.ipBlock.cidr);
            expect(peer.ipBlock.except).toEqual(expect.arrayContaining(NOT_INTERNET[peer.ipBlock.cidr]!));
          }
          expect(rule.to.map((peer: any) => peer.ipBlock.cidr).sort()).toEqual(Object.keys(NOT_INTERNET).sort());
          found.add('internet');
        } else if (INFRA_PORTS[port.port]) {
          found.add(INFRA_PORTS[port.port]!);
        } else {
          throw new Error(`${policy.metadata.name}: port ${port.port} is not one this test knows`);
        }
      }
    }
  }
  return [...found].sort();
}

/** Every Secret a workload reads, however it reads it. */
function secretsOf(workload: K8sObject): string[] {
  const names = new Set<string>();
  for (const container of containersOf(workload)) {
    for (const from of container.envFrom ?? []) if (from.secretRef) names.add(from.secretRef.name);
    for (const env of container.env ?? []) if (env.valueFrom?.secretKeyRef) names.add(env.valueFrom.secretKeyRef.name);
  }
  for (const volume of workload.spec.template.spec.volumes ?? []) {
    if (volume.secret) names.add(volume.secret.secretName);
    for (const source of volume.projected?.sources ?? []) if (source.secret) names.add(source.secret.name);
  }
  return [...names].sort();
}

/**
 * The environment the gateway's container gets from the render: its `env` values and the
 * data of the ConfigMaps it reads whole (`envFrom`), so a setting counts wherever it is made.
 */
function gatewayEnv(objects: K8sObject[]): Record<string, string> {
  const [container] = containersOf(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!);
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const configMap = from.configMapRef && objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef.name);
    if (configMap) Object.assign(env, configMap.data);
  }
  for (const entry of container.env ?? []) if (typeof entry.value === 'string') env[entry.name] = entry.value;
  return env;
}

/** The ingress controller the production overlay trusts (deploy/README.md, "Behind an ingress controller"). */
const INGRESS_CONTROLLER = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' } },
};

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

  test('config and secrets are referenced, never inlined: one generated ConfigMap, the Secrets and trusted keys created outside git', () => {
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
    expect(configMaps.map((c) => c.metadata.name)).toEqual([expect.stringMatching(new RegExp(`^tracker-config-${KUSTOMIZE_HASH}$`))]);
    expect(configMaps[0]!.data).toMatchObject({
      NODE_ENV: 'production',
      METRICS_PORT: '9464',
      ACCESS_URL: 'http://access:8081',
      ISSUES_URL: 'http://issues:8082',
      STATISTICS_URL: 'http://statistics:8083',
      AGENT_URL: 'http://agent:8084',
      NOTIFICATIONS_URL: 'http://notifications:8086',
      WEB_URL: 'http://web:8085',
    });
    for (const key of Object.keys(configMaps[0]!.data)) expect(key).not.toMatch(/SECRET|SIGNING|PASSWORD|TRUSTED|DATABASE_URL|REDIS_URL|AMQP_URL/);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const service of SERVICES) {
      const [container] = containersOf(find(objects, 'Deployment', service)!);
      const config = { configMapRef: { name: configMaps[0]!.metadata.name } };
      if (WITHOUT_SECRETS.includes(service)) expect(container.envFrom).toEqual([config]);
      else expect(container.envFrom).toEqual([config, { configMapRef: { name: 'tracker-trusted-keys' } }, { secretRef: { name: `${service}-secrets` } }]);
    }
    for (const workload of objects.filter((o) => containersOf(o).length > 0)) {
      for (const container of containersOf(workload)) {
        for (const env of container.env ?? []) expect(env.name).not.toMatch(/SECRET|SIGNING|PASSWORD|TRUSTED|_URL$/);
      }
    }
  });

  test('every workload reads only its own Secret, and no two share one', () => {
    const workloads = objects.filter((o) => containersOf(o).length > 0);
    expect(workloads.map((w) => w.metadata.name).sort()).toEqual([...WORKLOADS].sort());
    for (const workload of workloads) {
      const own = WITHOUT_SECRETS.includes(workload.metadata.name) ? [] : [`${workload.metadata.name}-secrets`];
      expect([workload.metadata.name, secretsOf(workload)]).toEqual([workload.metadata.name, own]);
    }
  });

  test('the migration Job migrates each service with its own image, in order, as non-root, as the migrator', () => {
    const job = find(objects, 'Job', 'migrate')!;
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.automountServiceAccountToken).toBe(false);
    const steps = containersOf(job);
    expect(steps.map((c) => c.name)).toEqual(['migrate-access', 'migrate-issues', 'migrate-statistics', 'migrate-notifications']);
    for (const step of steps) {
      const service = step.name.replace('migrate-', '');
      expect(step.image).toMatch(new RegExp(`(^|/)(tracker-)?${service}:`));
      expect(step.command).toEqual(['node_modules/.bin/prisma-offline', 'deploy']);
      // The migrator's DATABASE_URL and nothing else: no signing key, no service's Secret.
      expect(step.envFrom).toEqual([{ secretRef: { name: 'migrate-secrets' } }]);
      expect(step.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    }
  });

  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');

  test('network policy: a default deny of ingress and egress for every pod', () => {
    const deny = policies.filter((p) => Object.keys(p.spec.podSelector).length === 0);
    expect(deny.map((p) => p.spec)).toEqual([{ podSelector: {}, policyTypes: ['Ingress', 'Egress'] }]);
    for (const workload of WORKLOADS) {
      const ingress = policies.some((p) => p.spec.policyTypes.includes('Ingress') && selects(p.spec.podSelector, workload));
      const egress = policies.some((p) => p.spec.policyTypes.includes('Egress') && selects(p.spec.podSelector, workload));
      expect([workload, ingress, egress]).toEqual([workload, true, true]);
    }
  });

  test('network policy in: the gateway open to all (or to its proxy alone) on http only, the others only to their callers, metrics only to Prometheus', () => {
    const rulesFor = (service: string) =>
      policies.filter((p) => p.spec.policyTypes.includes('Ingress') && Object.keys(p.spec.podSelector).length > 0 && selects(p.spec.podSelector, service)).flatMap((p) => p.spec.ingress ?? []);
    for (const service of SERVICES) {
      const rules = rulesFor(service);
      const http = rules.filter((r: any) => r.ports.some((p: any) => p.port === 'http'));
      const metrics = rules.filter((r: any) => r.ports.some((p: any) => p.port === 'metrics'));
      expect(rules.length).toBe(http.length + metrics.length);
      // http: for the gateway, from anywhere, or only from the proxy's pods when it trusts a
      // header the proxy sets (below); else from named pods of this namespace.
      if (CALLERS[service] === 'anyone') {
        if (gatewayEnv(objects).CLIENT_ADDRESS_HEADER === undefined) expect(http).toEqual([{ ports: [{ port: 'http' }] }]);
        else expect(http).toEqual([{ from: [expect.any(Object)], ports: [{ port: 'http' }] }]);
      } else {
        const from = http.flatMap((r: any) => r.from);
        for (const peer of from) expect(Object.keys(peer)).toEqual(['podSelector']);
        expect(from.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/name']).sort()).toEqual([...(CALLERS[service] as string[])].sort());
      }
      // metrics: Prometheus in the monitoring namespace, nobody else.
      expect(metrics).toEqual([
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }],
          ports: [{ port: 'metrics' }],
        },
      ]);
    }
    expect(rulesFor('migrate')).toEqual([]);
  });

  test('network policy: a gateway that trusts a client-address header takes its public port from the proxy`s pods alone', () => {
    // The header names the client the failed authentications are counted against; whoever
    // reaches the gateway's port directly could write it and pass for anyone.
    if (gatewayEnv(objects).CLIENT_ADDRESS_HEADER === undefined) return;
    const http = policies
      .filter((p) => p.spec.policyTypes.includes('Ingress') && Object.keys(p.spec.podSelector).length > 0 && selects(p.spec.podSelector, 'gateway'))
      .flatMap((p) => p.spec.ingress ?? [])
      .filter((r: any) => r.ports.some((p: any) => p.port === 'http'));
    expect(http.length).toBeGreaterThan(0);
    for (const rule of http) {
      expect(rule.ports).toEqual([{ port: 'http' }]);
      expect(rule.from?.length).toBeGreaterThan(0);
      // Pods picked by namespace and by labels together: no address range, no whole namespace.
      for (const peer of rule.from) {
        expect(Object.keys(peer).sort()).toEqual(['namespaceSelector', 'podSelector']);
        expect(Object.keys(peer.namespaceSelector.matchLabels ?? {}).length).toBeGreaterThan(0);
        expect(Object.keys(peer.podSelector.matchLabels ?? {}).length).toBeGreaterThan(0);
      }
    }
  });

  test.each(WORKLOADS)('network policy out: %s reaches exactly what it needs', (workload) => {
    expect(reachable(policies, workload)).toEqual([...REACHES[workload]!].sort());
  });

  test('network policy: every call allowed out is allowed in, and the other way round', () => {
    for (const [callee, callers] of Object.entries(CALLERS)) {
      const expected = callers === 'anyone' ? [] : callers;
      const reaching = WORKLOADS.filter((w) => reachable(policies, w).includes(callee));
      expect([callee, reaching.sort()]).toEqual([callee, [...expected].sort()]);
    }
  });

  test('network policy: the internet only on TCP 80 and 443, in a rule of its own (no other port rides along)', () => {
    const rules = policies.flatMap((p) => (p.spec.egress ?? []).map((rule: any) => ({ name: p.metadata.name, rule })));
    const internet = rules.filter(({ rule }) => rule.to.some((peer: any) => peer.ipBlock && Object.keys(NOT_INTERNET).includes(peer.ipBlock.cidr)));
    expect(internet.map(({ name, rule }) => [name, rule.ports])).toEqual([
      [
        'notifications-egress',
        [
          { port: 80, protocol: 'TCP' },
          { port: 443, protocol: 'TCP' },
        ],
      ],
    ]);
  });

  test('network policy: each infrastructure destination is named in exactly one policy', () => {
    for (const [port, name] of Object.entries(INFRA_PORTS)) {
      const naming = policies.filter((p) => (p.spec.egress ?? []).some((r: any) => r.ports.some((x: any) => String(x.port) === port)));
      expect([name, naming.map((p) => p.metadata.name)]).toEqual([name, [`${name}-egress`]]);
      expect(naming[0]!.spec.egress).toHaveLength(1);
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

  test('names where Postgres, Redis and RabbitMQ are (outside the cluster) in one place each, by address range', () => {
    for (const name of ['postgres', 'redis', 'rabbitmq']) {
      const policy = find(objects, 'NetworkPolicy', `${name}-egress`)!;
      expect([name, Object.keys(policy.spec.egress[0].to[0])]).toEqual([name, ['ipBlock']]);
      const base = find(renders.base, 'NetworkPolicy', `${name}-egress`)!;
      expect(policy.spec.podSelector).toEqual(base.spec.podSelector);
      expect(policy.spec.egress[0].ports).toEqual(base.spec.egress[0].ports);
    }
  });

  test('has the gateway take the client`s address from X-Forwarded-For, as the ingress controller sets it', () => {
    expect(gatewayEnv(objects).CLIENT_ADDRESS_HEADER).toBe('X-Forwarded-For');
    // Only the gateway reads it.
    for (const service of SERVICES.filter((s) => s !== 'gateway')) {
      const [container] = containersOf(find(objects, 'Deployment', service)!);
      expect([service, (container.env ?? []).map((e: any) => e.name)]).toEqual([service, ['PORT']]);
    }
  });

  test('lets only the ingress controller`s pods reach the gateway`s public port, and Prometheus its metrics port', () => {
    const policy = find(objects, 'NetworkPolicy', 'gateway-ingress')!;
    expect(policy.spec.ingress).toEqual([
      { from: [INGRESS_CONTROLLER], ports: [{ port: 'http' }] },
      find(renders.base, 'NetworkPolicy', 'gateway-ingress')!.spec.ingress[1],
    ]);
    expect(policy.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'gateway' } });
    // No other policy opens the gateway's port.
    const others = objects.filter((o) => o.kind === 'NetworkPolicy' && o.metadata.name !== 'gateway-ingress' && o.spec.policyTypes.includes('Ingress') && Object.keys(o.spec.podSelector).length > 0 && selects(o.spec.podSelector, 'gateway'));
    expect(others.map((o) => o.metadata.name)).toEqual([]);
  });

  test('scales wider than the base and gives pods more headroom', () => {
    for (const service of SERVICES) {
      const hpa = find(objects, 'HorizontalPodAutoscaler', service)!;
      expect(hpa.spec.minReplicas).toBeGreaterThan(find(renders.base, 'HorizontalPodAutoscaler', service)!.spec.minReplicas);
      expect(find(objects, 'Deployment', service)!.spec.template.spec.containers[0].resources.limits.memory).toBe('1Gi');
    }
  });
});

describe('the renderer', () => {
  test(`is kustomize ${MIN_KUSTOMIZE_MAJOR}.0 or newer, through kubectl`, () => {
    expect(kustomizeVersion()[0]).toBeGreaterThanOrEqual(MIN_KUSTOMIZE_MAJOR);
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
