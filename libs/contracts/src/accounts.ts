import { z } from 'zod';
import { text } from './queues';
import { User, WorkspaceRole } from './users';

/**
 * People's way in: accounts, sign-in, sessions and personal tokens. The `/auth/*` bodies
 * (sign-in, setup, password) are read by the access service behind the gateway, without a
 * bearer token; the personal tokens and invitations are /api/v1 operations like any other.
 */
export const ACCOUNT_LIMITS = {
  emailMax: 254,
  passwordMin: 12,
  passwordMax: 256,
  tokenNameMax: 100,
  tokenDaysMax: 366,
  /** A setup link is good this long, once, and only the newest. */
  setupLinkHours: 72,
  /** A session ends after this long without a request that renews it, and after sessionDays in all. */
  sessionIdleHours: 12,
  sessionDays: 30,
  /** What POST /auth/token gives a signed-in page: a bearer token good this long. */
  sessionTokenSeconds: 900,
  /** The first characters of a token, shown in listings. */
  prefixLength: 10,
  /** Personal tokens a person holds at once (revoked ones not counted). */
  tokensPerUser: 100,
} as const;

/** The /auth operations: what the gateway forwards to the access service without a bearer token. */
export const AUTH_ROUTES = [
  { method: 'POST', path: '/auth/sign-in' },
  { method: 'POST', path: '/auth/setup' },
  { method: 'GET', path: '/auth/session' },
  { method: 'POST', path: '/auth/token' },
  { method: 'POST', path: '/auth/password' },
  { method: 'POST', path: '/auth/sign-out' },
] as const;

/** An /auth body is a few fields: anything past this is 413. */
export const AUTH_BODY_LIMIT_BYTES = 16 * 1024;

/** The cookie of a signed-in browser. */
export const SESSION_COOKIE = 'trk_session';

/** A sign-in name: an address of at most 254 characters, matched case-insensitively. */
export const Email = z
  .string()
  .max(ACCOUNT_LIMITS.emailMax)
  .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address')
  .meta({ description: 'The user\'s email, their sign-in name: unique in the installation, matched case-insensitively, at most 254 characters.', examples: ['ada@example.com'] });

const Password = z
  .string()
  .min(ACCOUNT_LIMITS.passwordMin)
  .max(ACCOUNT_LIMITS.passwordMax)
  .meta({ description: 'A password of 12 to 256 characters.', examples: ['correct horse battery staple'] });

/** POST /auth/sign-in. */
export const SignIn = z.strictObject({
  email: z.string().max(ACCOUNT_LIMITS.emailMax).meta({ description: 'The email the user signs in with.', examples: ['ada@example.com'] }),
  password: z.string().max(ACCOUNT_LIMITS.passwordMax).meta({ description: 'The user\'s password.', examples: ['correct horse battery staple'] }),
});

/** POST /auth/setup: the code of a setup link, and the password it sets. */
export const Setup = z.strictObject({
  code: z.string().max(200).meta({ description: 'The code of the setup link (after `#code=`).', examples: ['vN3kq0yD0d6kz8H9bX2c1w'] }),
  password: Password,
});

/** POST /auth/password. */
export const PasswordChange = z.strictObject({
  current_password: z.string().max(ACCOUNT_LIMITS.passwordMax).meta({ description: 'The password in use now.' }),
  new_password: Password,
});

/** GET /auth/session. */
export const Session = z.object({
  user: User,
  workspace: z.object({ id: z.number().int().positive(), name: z.string() }),
});
export type Session = z.infer<typeof Session>;

/** POST /auth/token: a bearer token for a signed-in page, good for `expires_in` seconds, dying with its session. */
export const SessionToken = z.object({
  access_token: z.string(),
  expires_in: z.number().int().positive(),
});
export type SessionToken = z.infer<typeof SessionToken>;

/** POST /api/v1/tokens body. */
export const TokenCreate = z.strictObject({
  name: text(1, ACCOUNT_LIMITS.tokenNameMax).meta({ description: 'What the token is for, 1 to 100 characters.', examples: ['CI pipeline'] }),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(ACCOUNT_LIMITS.tokenDaysMax)
    .nullable()
    .meta({ description: 'Days until the token expires, 1 to 366, or `null` for a token that does not expire.', examples: [90] }),
});
export type TokenCreate = z.infer<typeof TokenCreate>;

/** A personal token as listed: never its secret. */
export const PersonalToken = z.object({
  id: z.number().int().positive().meta({ description: 'The token id (what DELETE /api/v1/tokens/{token_id} names).' }),
  name: z.string().meta({ description: 'What the token is for; tokens made by the operator command line are named "created by operator".' }),
  prefix: z.string().meta({ description: 'The first characters of the token (10; 8 for tokens made before names), to recognise it.', examples: ['trk_Ab12cd'] }),
  created_at: z.iso.datetime().meta({ description: 'When the token was made (UTC).' }),
  expires_at: z.iso.datetime().nullable().meta({ description: 'When the token stops working (UTC), or `null` if never.' }),
  last_used_at: z.iso.datetime().nullable().meta({ description: 'When the token was last used (UTC), at most 60 seconds behind; `null` if never.' }),
});
export type PersonalToken = z.infer<typeof PersonalToken>;

/** POST /api/v1/tokens answer: the token as listed, and its secret, shown this once. */
export const PersonalTokenCreated = PersonalToken.extend({
  token: z.string().meta({ description: 'The secret, shown this once: store it now.', examples: ['trk_Ab12cdEf34gh56ij78kl90mn12op34qr56st78'] }),
});
export type PersonalTokenCreated = z.infer<typeof PersonalTokenCreated>;

/** DELETE /api/v1/tokens/{token_id} answer. */
export const TokenRevoked = z.object({
  id: z.number().int().positive().meta({ description: 'The id of the revoked token.' }),
  revoked: z.literal(true).meta({ description: 'Always `true`: the token is refused from the very next request on.' }),
});

/** POST /api/v1/users body: a colleague invited by a workspace admin. */
export const UserInvite = z.strictObject({
  name: text(1, 100).meta({ description: 'The new user\'s name, 1 to 100 characters.', examples: ['Grace Hopper'] }),
  email: Email,
  role: WorkspaceRole.meta({ description: 'The workspace role: `admin` or `member` (the default).', examples: ['member'] }).default('member'),
});
export type UserInvite = z.input<typeof UserInvite>;

/** POST /api/v1/users/{user_id}/setup-link body (optional): gives or changes the user's email. */
export const SetupLinkRequest = z.strictObject({ email: Email.optional() });

/** A setup link to hand to its person: opening it changes nothing, its form sets a password, once, within 72 hours. */
export const SetupLink = z.object({
  setup_url: z.string().meta({ description: 'The one-time setup link `{PUBLIC_URL}/setup#code=…`: good for 72 hours, once; any earlier link of the user is void.', examples: ['https://tracker.example.com/setup#code=vN3kq0yD0d6kz8H9bX2c1w'] }),
});

/** POST /api/v1/users answer: the user and their setup link. */
export const InvitedUser = User.extend(SetupLink.shape);
export type InvitedUser = z.infer<typeof InvitedUser>;
