import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The gateway authenticates the caller once and forwards who they are in a
 * header signed with the shared internal secret (HMAC-SHA256, short expiry).
 * Services trust only a valid signature, so reaching a service port directly
 * is not a way in.
 */
export const PRINCIPAL_HEADER = 'x-tracker-principal';

/** Headers only the gateway may set; it strips any copy a client sends. */
export const INTERNAL_HEADERS = [PRINCIPAL_HEADER] as const;

export type WorkspaceRole = 'admin' | 'member';

export type Principal =
  | { kind: 'user'; userId: number; workspaceId: number; workspaceRole: WorkspaceRole; tokenId: number }
  | { kind: 'service'; service: string };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

const VERSION = 'v1';
export const PRINCIPAL_TTL_SECONDS = 30;

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(`${VERSION}.${payload}`).digest();
}

export function signPrincipal(principal: Principal, secret: string, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...principal, exp: Math.floor(now / 1000) + PRINCIPAL_TTL_SECONDS })).toString(
    'base64url',
  );
  return `${VERSION}.${payload}.${mac(secret, payload).toString('base64url')}`;
}

/**
 * Returns the principal of a valid, unexpired header, or null. Several secrets
 * may be given so the signing secret can be rotated without downtime.
 */
export function verifyPrincipal(header: string | undefined, secrets: readonly string[], now = Date.now()): Principal | null {
  if (!header || header.length > 2048) return null;
  const [version, payload, signature, ...rest] = header.split('.');
  if (version !== VERSION || !payload || !signature || rest.length > 0) return null;
  const given = Buffer.from(signature, 'base64url');
  const valid = secrets.some((secret) => {
    const expected = mac(secret, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) return null;
  try {
    const { exp, ...principal } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof exp !== 'number' || exp * 1000 < now) return null;
    return isPrincipal(principal) ? principal : null;
  } catch {
    return null;
  }
}

function isPrincipal(value: Record<string, unknown>): value is Principal {
  if (value.kind === 'service') return typeof value.service === 'string';
  return (
    value.kind === 'user' &&
    Number.isSafeInteger(value.userId) &&
    Number.isSafeInteger(value.workspaceId) &&
    Number.isSafeInteger(value.tokenId) &&
    (value.workspaceRole === 'admin' || value.workspaceRole === 'member')
  );
}
