import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { Passwords } from '../domain/ports';

/** Argon2id with OWASP's first recommended parameters: 19 MiB of memory, 2 passes, 1 lane. */
const OWASP = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Password hashing, run off the event loop by @node-rs/argon2's own threads. A sign-in
 * for an email nobody has verifies against a hash made at start-up with the same
 * parameters, so its answer takes as long as a wrong password's.
 */
export function argon2Passwords(options: Partial<typeof OWASP> = {}): Passwords {
  const parameters = { ...OWASP, ...options };
  const dummy = hash('a password nobody has, for timing', parameters);
  return {
    hash: (password) => hash(password, parameters),
    async verify(stored, password) {
      if (stored === null) {
        await verify(await dummy, password).catch(() => false);
        return false;
      }
      return verify(stored, password).catch(() => false);
    },
  };
}
