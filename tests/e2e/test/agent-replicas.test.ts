import { startSystem, type ServiceProcess, type System } from '@tracker/testing';
import { agentWalk, alternating } from './agent-walk';

/**
 * Two gateways, each in front of its own agent replica, with consecutive requests of one
 * agent session alternating between them: the stateless transport needs no affinity,
 * so the whole walk passes as on one stack.
 */
let system: System;
let secondAgent: ServiceProcess;
let secondGateway: ServiceProcess;

beforeAll(async () => {
  system = await startSystem();
  secondAgent = await system.startAgent();
  secondGateway = await system.startGateway({ AGENT_URL: secondAgent.url });
}, 120_000);
afterAll(() => system?.stop());

const mcpRequests = (agent: ServiceProcess) => agent.output().split('\n').filter((line) => line.includes('"path":"/mcp"')).length;

test('when an agent\'s requests alternate between two gateways and two agent replicas, then the whole walk passes', async () => {
  const rotate = alternating([system.gatewayUrl, secondGateway.url]);
  await agentWalk(system, { fetch: rotate });
  const counts = Object.values(rotate.sent);
  expect(Math.abs(counts[0]! - counts[1]!)).toBeLessThanOrEqual(1);
  expect(counts[0]! + counts[1]!).toBeGreaterThan(25);
  // Both replicas served a share (each logs its requests once they have finished).
  await new Promise((r) => setTimeout(r, 200));
  expect([mcpRequests(system.services.agent), mcpRequests(secondAgent)]).toEqual([counts[0], counts[1]]);
}, 90_000);
