// The whole system, started and driven as its users meet it: every service as a process
// (processes.ts), wired together in a test file's own schemas (system.ts), replicated
// behind round-robins (round-robin.ts), its answers held to the OpenAPI document
// (documented-responses.ts), the replica compared with its source (replica.ts), and the
// agent tool interface reached as an MCP client (agent.ts, header-relay.ts).
// Per-file infrastructure (schemas, Redis, AMQP names, relays, fakes) is @tracker/testing's.
export * from './system';
export * from './processes';
export * from './round-robin';
export * from './replica';
export * from './documented-responses';
export * from './agent';
export * from './header-relay';
