#!/usr/bin/env node
// Fresh keys and passwords for a Tracker installation (node:crypto only, no dependencies).
//
//   pnpm -s keys                     a complete .env for docker compose: one Ed25519 signing key per
//                                    component, INTERNAL_TRUSTED_KEYS (their public halves), the key that
//                                    seals webhook secrets, and a random password for every infrastructure
//                                    credential docker-compose.yml needs
//   pnpm -s keys key <component>     a new key pair for one component (key rotation, deploy/OPERATIONS.md)
//   pnpm -s keys public <seed>       the public half of a signing key, as INTERNAL_TRUSTED_KEYS writes it
//
// A signing key is the 32-byte Ed25519 seed in base64url (43 characters), exactly what a service reads
// from INTERNAL_SIGNING_KEY; its public key is the 32 raw bytes of the public point in base64url
// (libs/signing/src/signing.ts). Nothing is written to disk: redirect the output, e.g.
// `test -e .env || pnpm -s keys > .env` (never overwrite the .env of a running installation: its
// database already holds the old passwords).
'use strict';

const { createPrivateKey, createPublicKey, randomBytes } = require('node:crypto');

const COMPONENTS = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'];
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The credentials docker-compose.yml reads besides the keys, with what each one is for. */
const PASSWORDS = [
  ['POSTGRES_PASSWORD', 'Postgres superuser (bootstrap only: creates the roles below; no service uses it)'],
  ['MIGRATOR_DB_PASSWORD', 'Postgres role tracker_migrator: owns the schemas, runs the migrations'],
  ['ACCESS_DB_PASSWORD', 'Postgres role tracker_access: data in schema access only'],
  ['ISSUES_DB_PASSWORD', 'Postgres role tracker_issues: data in schema issues only'],
  ['STATISTICS_DB_PASSWORD', 'Postgres role tracker_statistics: data in schema statistics only'],
  ['NOTIFICATIONS_DB_PASSWORD', 'Postgres role tracker_notifications: data in schema notifications only'],
  ['GATEWAY_REDIS_PASSWORD', 'Redis user tracker-gateway: reads the token cache, counts in rl:* and af:*'],
  ['ACCESS_REDIS_PASSWORD', 'Redis user tracker-access: writes the principal and grant caches, counts sign-in failures, keeps its ticket ids'],
  ['ISSUES_REDIS_PASSWORD', 'Redis user tracker-issues: reads the grant cache, keeps its ticket ids'],
  ['STATISTICS_REDIS_PASSWORD', 'Redis user tracker-statistics: reads the grant cache, keeps its ticket ids'],
  ['AGENT_REDIS_PASSWORD', 'Redis user tracker-agent: its accepted ticket ids only'],
  ['NOTIFICATIONS_REDIS_PASSWORD', 'Redis user tracker-notifications: reads the grant cache, keeps its ticket ids'],
  ['ACCESS_AMQP_PASSWORD', 'RabbitMQ user tracker-access: publishes to tracker.events'],
  ['ISSUES_AMQP_PASSWORD', 'RabbitMQ user tracker-issues: publishes to tracker.events'],
  ['STATISTICS_AMQP_PASSWORD', 'RabbitMQ user tracker-statistics: consumes statistics.events'],
  ['NOTIFICATIONS_AMQP_PASSWORD', 'RabbitMQ user tracker-notifications: consumes notifications.events'],
];

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

/** A new signing key: 32 random bytes, base64url. */
const newSeed = () => b64url(randomBytes(32));

/** The public half of a seed: the last 32 bytes of the SPKI DER of the Ed25519 key, base64url. */
function publicKeyOf(seed) {
  const bytes = Buffer.from(seed, 'base64url');
  if (!/^[A-Za-z0-9_-]{43}$/.test(seed) || bytes.length !== 32 || b64url(bytes) !== seed) {
    throw new Error('a signing key is 32 bytes in base64url (43 characters)');
  }
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return b64url(spki.subarray(spki.length - 32));
}

/** A password: 32 random bytes, base64url (43 characters of [A-Za-z0-9_-], safe in URLs, SQL and JSON). */
const newPassword = () => b64url(randomBytes(32));

/** The other keys docker-compose.yml reads: 32 random bytes each, base64url. */
const DATA_KEYS = [['NOTIFICATIONS_WEBHOOK_SECRETS_KEY', "notifications' WEBHOOK_SECRETS_KEY: seals the webhook secrets in its database (keep it: without it they cannot be read)"]];

function envFile() {
  const keys = COMPONENTS.map((component) => {
    const seed = newSeed();
    return { component, seed, publicKey: publicKeyOf(seed) };
  });
  const lines = [
    '# Tracker secrets for docker compose (docker-compose.yml refuses to start without each of them).',
    `# Made by scripts/internal-keys.cjs on ${new Date().toISOString()}. Keep this file private (chmod 600).`,
    '#',
    '# Each component signs with its own Ed25519 key (its INTERNAL_SIGNING_KEY: private).',
    ...keys.map(({ component, seed }) => `${component.toUpperCase()}_SIGNING_KEY=${seed}`),
    '# Every component trusts these public keys (not secret; the same list everywhere).',
    `INTERNAL_TRUSTED_KEYS=${keys.map(({ component, publicKey }) => `${component}:${publicKey}`).join(',')}`,
    '#',
    ...DATA_KEYS.flatMap(([name, what]) => [`# ${what}`, `${name}=${newPassword()}`]),
    '#',
    '# Infrastructure passwords, set once when the volumes are created (deploy/README.md).',
  ];
  for (const [name, what] of PASSWORDS) lines.push(`# ${what}`, `${name}=${newPassword()}`);
  return `${lines.join('\n')}\n`;
}

const USAGE = `usage: node scripts/internal-keys.cjs                   a .env for docker compose (keys and passwords)
       node scripts/internal-keys.cjs key <component>   a new key pair for one component (${COMPONENTS.join(', ')})
       node scripts/internal-keys.cjs public <seed>     the public key of a signing key`;

function main(argv) {
  const [command, ...args] = argv;
  if (command === undefined) {
    process.stdout.write(envFile());
    return 0;
  }
  if (command === 'key' && args.length === 1 && COMPONENTS.includes(args[0])) {
    const seed = newSeed();
    process.stdout.write(
      `# New key of ${args[0]}. Rotation (deploy/OPERATIONS.md): first add the public entry to INTERNAL_TRUSTED_KEYS\n` +
        `# everywhere and roll, then give ${args[0]} the new INTERNAL_SIGNING_KEY and roll it, then drop its old entry.\n` +
        `${args[0].toUpperCase()}_SIGNING_KEY=${seed}\n` +
        `# INTERNAL_TRUSTED_KEYS entry:\n${args[0]}:${publicKeyOf(seed)}\n`,
    );
    return 0;
  }
  if (command === 'public' && args.length === 1) {
    try {
      process.stdout.write(`${publicKeyOf(args[0])}\n`);
      return 0;
    } catch (error) {
      process.stderr.write(`internal-keys: ${error.message}\n`);
      return 65;
    }
  }
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 64;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { COMPONENTS, newSeed, publicKeyOf };
