import { randomBytes } from 'node:crypto';
import { hashToken } from '@tracker/authz';

/** A secret of 256 random bits in base64url (43 characters): session ids and setup codes. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** Secrets are stored only as their SHA-256, as tokens are. */
export const hashSecret = hashToken;

/** The shape of a secret newSecret made: anything else is refused before a lookup. */
export const isSecretShaped = (text: string) => /^[A-Za-z0-9_-]{43}$/.test(text);
