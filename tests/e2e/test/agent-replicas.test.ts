import { replicated, startSystem, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { agentWalk, alternating } from './agent-walk';

/**
 * Two gateways, each in front of its own agent replica, with consecutive requests of one
 * agent session alternating between them: the stateless transport needs no affinity,
 * so the whole walk passes as on one stack. Replicated (TRACKER_E2E_REPLICAS), the system
 * has two gateways and two agent replicas of its own: the walk alternates between its
 * gateways, which both reach the agents through their round-robin.
 */
let system: System;
let gateways: string[];
let agents: ServiceProcess[];

beforeAll(async () => {
  system = await startSystem();
  if (replicated()) {
    gateways = system.instances('gateway').map((gateway) => gateway.url);
    agents = system.instances('agent');
  } else {
    const secondAgent = await system.startAgent();
    const secondGateway = await system.startGateway({ AGENT_URL: secondAgent.url });
    gateways = [system.gatewayUrl, secondGateway.url];
    agents = [system.services.agent, secondAgent];
  }
}, 120_000);
afterAll(() => system?.stop());

const mcpRequests = (agent: ServiceProcess) => agent.output().split('\n').filter((line) => line.includes('"path":"/mcp"')).length;
const spread = (counts: number[]) => Math.max(...counts) - Math.min(...counts);

test('when an agent\'s requests alternate between two gateways and two agent replicas, then the whole walk passes', async () => {
  const rotate = alternating(gateways);
  await agentWalk(system, { fetch: rotate });
  const counts = Object.values(rotate.sent);
  expect(spread(counts)).toBeLessThanOrEqual(1);
  const sent = counts.reduce((sum, n) => sum + n, 0);
  expect(sent).toBeGreaterThan(25);
  // Both replicas served a share (each logs its requests once they have finished).
  await new Promise((r) => setTimeout(r, 200));
  const served = agents.map(mcpRequests);
  if (replicated()) {
    // Through the agents' round-robin: every request served once, in turns.
    expect(served.reduce((sum, n) => sum + n, 0)).toBe(sent);
    expect(spread(served)).toBeLessThanOrEqual(1);
  } else {
    expect(served).toEqual(counts);
  }
}, 90_000);
