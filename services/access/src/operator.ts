/**
 * `@tracker/access/operator`: the operator command line's use cases (src/cli/main.ts) and
 * the service they run in, built from the environment, for what runs many of them in one
 * process (the security suite's seeding). A service has no main entry; this is the one
 * part of it another package may import.
 */
export { createAccessService } from './app';
export { loadAccessConfig } from './config';
export { addUser } from './domain/add-user.use-case';
export { createToken } from './domain/create-token.use-case';
export { createWorkspace } from './domain/create-workspace.use-case';
export { revokeToken } from './domain/revoke-token.use-case';
