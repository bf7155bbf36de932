/**
 * `@tracker/gateway/redis`: this service's own Redis code, for the deployment test that runs
 * it under the service's Redis user (tests/deploy/test/redis-acl.test.ts), so that the
 * user's rights are checked against exactly what the service does.
 */
export { authStore } from './data-access/auth-store';
