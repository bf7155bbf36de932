/**
 * `@tracker/access/redis`: this service's own Redis code, for the deployment test that runs
 * it under the service's Redis user (tests/deploy/test/redis-acl.test.ts), so that the
 * user's rights are checked against exactly what the service does.
 */
export { sharedCache } from './data-access/shared-cache';
export { signInThrottle } from './data-access/sign-in-throttle';
