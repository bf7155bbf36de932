import { randomBytes, randomUUID, sign } from 'node:crypto';
import {
  AGENT_CALLS,
  bodyDigest,
  checkTicket,
  CLOCK_SKEW_SECONDS,
  issueTicket,
  TICKET_TTL_SECONDS,
  VOUCH_MEMO_MAX,
  VOUCH_TTL_SECONDS,
  vouchReader,
  vouchReaderOf,
  type AgentCall,
  type Proofs,
  type ReceivedRequest,
  type TicketKeys,
  type TicketRequest,
  type UserPrincipal,
} from '../src/principal';
import { devSigningKey, devTrustedKeysText, macPayload, parseTrustedKeys, sharedKeys, signingKeyFromSeed, signPayload, SIGNERS, type Signer, type SigningKey } from '@tracker/signing';

const NOW = 1_700_000_000_000;
const trusted = parseTrustedKeys(devTrustedKeysText());
const gateway = devSigningKey('gateway');
const agent = devSigningKey('agent');
const user: UserPrincipal = { kind: 'user', userId: 7, workspaceId: 3, workspaceRole: 'member', tokenId: 42 };
const body = Buffer.from('{"title":"Fix login"}');

const request: TicketRequest = { audience: 'issues', method: 'POST', path: '/api/v1/issues?x=1', body, user };
const received: ReceivedRequest = { audience: 'issues', method: 'POST', path: '/api/v1/issues?x=1', bodyDigest: bodyDigest(body) };

/** A part's own keys as the services hold them: it tags its tickets and checks tagged ones. */
const keysOf = (signer: Signer, trustedKeys = trusted): TicketKeys => ({ key: devSigningKey(signer), trusted: trustedKeys });

/** The user's /mcp request, as the gateway forwards it to the agent and as the agent receives it. */
const mcpBody = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call"}');
const toAgent: TicketRequest = { audience: 'agent', method: 'POST', path: '/mcp', body: mcpBody, user };
const atAgent: ReceivedRequest = { audience: 'agent', method: 'POST', path: '/mcp', bodyDigest: bodyDigest(mcpBody) };

const claimsOf = (text: string) => JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString());

/** A vouch as the gateway signs one (or, with `key`, as another part would): `sub` for VOUCH_TTL_SECONDS from `iat`. */
const vouchOf = (sub: object, iat = Math.floor(NOW / 1000), key: SigningKey = gateway, claims: object = {}) =>
  signPayload(key, { use: 'vouch', iss: 'gateway', sub, iat, exp: iat + VOUCH_TTL_SECONDS, ...claims });

/** The agent's tagged call to `service` with `act` as its proof, as that service checks it: the user, or why not. */
function atService(service: AgentCall, act: string, now = NOW) {
  const call = { audience: service, method: 'GET', path: '/api/v1/me' };
  const check = checkTicket(issueTicket(keysOf('agent'), { ...call, onBehalfOf: act }, now), keysOf(service), { ...call, bodyDigest: bodyDigest(undefined) }, now);
  return check.ok ? check.principal : check.reason;
}

/** Claims as the module would sign them, changed, and signed again with `key`: only the change is at fault. */
function resigned(ticket: string, change: (claims: Record<string, unknown>) => object, key: SigningKey = gateway): string {
  const claims = JSON.parse(Buffer.from(ticket.split('.')[1]!, 'base64url').toString());
  const payload = Buffer.from(JSON.stringify(change(claims))).toString('base64url');
  return `v1.${payload}.${sign(null, Buffer.from(`v1.${payload}`), key.privateKey).toString('base64url')}`;
}

const reasonOf = (header: string | undefined, expected = received, now = NOW) => {
  const check = checkTicket(header, trusted, expected, now);
  return check.ok ? 'ok' : check.reason;
};

describe('issueTicket / checkTicket', () => {
  test('when the gateway makes a ticket for a user, then the service receiving that very request gets the user, the id and when to forget it', () => {
    const check = checkTicket(issueTicket(gateway, request, NOW), trusted, received, NOW);
    expect(check).toEqual({ ok: true, principal: user, jti: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), expiresAt: (Math.floor(NOW / 1000) + TICKET_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000, bodyDigest: bodyDigest(body) });
  });

  test('when two tickets are made for the same request, then their ids differ (each is good once)', () => {
    const ids = [1, 2].map(() => (checkTicket(issueTicket(gateway, request, NOW), trusted, received, NOW) as { jti: string }).jti);
    expect(ids[0]).not.toBe(ids[1]);
  });

  test('when a service makes a ticket without a user, then it is that service calling', () => {
    const ticket = issueTicket(devSigningKey('statistics'), { audience: 'issues', method: 'GET', path: '/internal/snapshot/issues' }, NOW);
    const check = checkTicket(ticket, trusted, { audience: 'issues', method: 'GET', path: '/internal/snapshot/issues', bodyDigest: bodyDigest(undefined) }, NOW);
    expect(check).toMatchObject({ ok: true, principal: { kind: 'service', service: 'statistics' } });
  });

  test.each([
    ['another service', { ...received, audience: 'statistics' as const }, 'addressed to another service'],
    ['another method', { ...received, method: 'PATCH' }, 'made for another request'],
    ['another path', { ...received, path: '/api/v1/issues/A-1' }, 'made for another request'],
    ['another query', { ...received, path: '/api/v1/issues?x=2' }, 'made for another request'],
    ['another body', { ...received, bodyDigest: bodyDigest(Buffer.from('{"title":"Fix logout"}')) }, 'made for another request'],
    ['no body', { ...received, bodyDigest: bodyDigest(undefined) }, 'made for another request'],
  ])('when a ticket arrives with %s than it was made for, then it is refused', (_name, other, reason) => {
    expect(reasonOf(issueTicket(gateway, request, NOW), other)).toBe(reason);
  });

  describe('lifetime', () => {
    const ticket = issueTicket(gateway, request, NOW);
    const issuedAt = Math.floor(NOW / 1000) * 1000;

    test('when checked within its lifetime (plus the allowed clock skew), then it is accepted', () => {
      expect(reasonOf(ticket, received, issuedAt + (TICKET_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000 - 1)).toBe('ok');
    });

    test('when checked after its lifetime and the skew, then it is refused as expired', () => {
      expect(reasonOf(ticket, received, issuedAt + (TICKET_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000)).toBe('expired');
    });

    test('when its issuer\'s clock runs a minute fast, then its tickets are refused as issued in the future, not accepted for longer', () => {
      expect(reasonOf(issueTicket(gateway, request, NOW + 60_000))).toBe('issued in the future');
    });

    test('when a signer gives a ticket a longer life than the TTL, then it is refused (no hour-long tickets)', () => {
      expect(reasonOf(resigned(ticket, (c) => ({ ...c, exp: (c.exp as number) + 3600 })))).toBe('lifetime too long');
    });

    test.each([
      ['no iat', (c: Record<string, unknown>) => ({ ...c, iat: undefined })],
      ['a text exp', (c: Record<string, unknown>) => ({ ...c, exp: String(c.exp) })],
      ['exp before iat', (c: Record<string, unknown>) => ({ ...c, exp: (c.iat as number) - 1 })],
    ])('when a signed ticket has %s, then it is refused', (_name, change) => {
      expect(reasonOf(resigned(ticket, change))).not.toBe('ok');
    });
  });

  describe('signatures', () => {
    const ticket = issueTicket(gateway, request, NOW);
    const [version, payload, signature] = ticket.split('.') as [string, string, string];

    test.each([
      ['a character appended to the signature', `${ticket}!`],
      ['padding appended to the signature', `${ticket}==`],
      ['a signature truncated by one character', ticket.slice(0, -1)],
      ['the signature\'s last character changed', ticket.slice(0, -1) + (ticket.endsWith('A') ? 'B' : 'A')],
      ['no signature', `${version}.${payload}.`],
      ['another version', `v0.${payload}.${signature}`],
      ['a fourth part', `${ticket}.x`],
      ['the payload padded', `${version}.${payload}=.${signature}`],
      ['nothing', ''],
      ['garbage', 'x'.repeat(5000)],
    ])('when a ticket has %s, then it is refused', (_name, header) => {
      expect(reasonOf(header)).not.toBe('ok');
    });

    test('when the claims are changed after signing, then it is refused', () => {
      const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: { ...user, workspaceRole: 'admin' } })).toString('base64url');
      expect(reasonOf(`${version}.${changed}.${signature}`)).toBe('bad signature');
    });

    test.each([
      ['no use', (c: Record<string, unknown>) => ({ ...c, use: undefined })],
      ['the use of a cache entry', (c: Record<string, unknown>) => ({ ...c, use: 'authz-cache' })],
      ['no issuer', (c: Record<string, unknown>) => ({ ...c, iss: undefined })],
    ])('when a text the gateway signed has %s, then it does not pass for a ticket', (_name, change) => {
      expect(reasonOf(resigned(ticket, change))).toBe('bad signature');
    });

    test('when a ticket names the gateway but is signed with a key no one trusts, then it is refused', () => {
      const stranger = signingKeyFromSeed('gateway', Buffer.alloc(32, 9).toString('base64url'));
      expect(reasonOf(issueTicket(stranger, request, NOW))).toBe('bad signature');
    });

    test('when the gateway\'s key is being rotated, then tickets of the old and of the new key are both accepted', () => {
      const next = signingKeyFromSeed('gateway', Buffer.from('0123456789abcdef0123456789abcdef').toString('base64url'));
      const rotating = parseTrustedKeys(`${devTrustedKeysText()},gateway:${next.publicKey}`);
      for (const key of [gateway, next]) expect(checkTicket(issueTicket(key, request, NOW), rotating, received, NOW).ok).toBe(true);
    });
  });

  describe('who may vouch for whom', () => {
    test.each(SIGNERS.filter((signer) => signer !== 'gateway'))('when %s signs a ticket for a user by itself, then it is refused (only the gateway vouches for users)', (signer) => {
      expect(reasonOf(issueTicket(devSigningKey(signer), request, NOW))).toBe('not a principal its signer may vouch for');
    });

    test('when a ticket names one signer but is signed by another, then it is refused', () => {
      expect(reasonOf(resigned(issueTicket(gateway, request, NOW), (c) => c, devSigningKey('issues')))).toBe('bad signature');
    });

    test.each([
      ['an extra field', { ...user, admin: true }],
      ['a role that does not exist', { ...user, workspaceRole: 'owner' }],
      ['a text user id', { ...user, userId: '7' }],
    ])('when the gateway signs a user with %s, then it is refused', (_name, sub) => {
      expect(reasonOf(resigned(issueTicket(gateway, request, NOW), (c) => ({ ...c, sub })))).toBe('not a principal its signer may vouch for');
    });

    describe('the agent, for a user calling it', () => {
      const gatewayToAgent = issueTicket(gateway, { audience: 'agent', method: 'POST', path: '/mcp', body: mcpBody, user }, NOW);

      test('when the agent calls a service with the gateway\'s ticket for the user\'s /mcp request, then the service gets that user', () => {
        const ticket = issueTicket(agent, { ...request, user: undefined, onBehalfOf: gatewayToAgent }, NOW);
        expect(checkTicket(ticket, trusted, received, NOW)).toMatchObject({ ok: true, principal: user });
      });

      test('when the agent names a user of its own beside the gateway\'s ticket, then it is refused', () => {
        const ticket = issueTicket(agent, { ...request, user: { ...user, workspaceRole: 'admin' }, onBehalfOf: gatewayToAgent }, NOW);
        expect(reasonOf(ticket)).toBe('not a principal its signer may vouch for');
      });

      test.each([
        ['a gateway ticket made for another service', () => issueTicket(gateway, { audience: 'issues', method: 'POST', path: '/mcp', body: mcpBody, user }, NOW)],
        ['a gateway ticket that has expired', () => issueTicket(gateway, { audience: 'agent', method: 'POST', path: '/mcp', body: mcpBody, user }, NOW - 60_000)],
        ['a "gateway" ticket the agent signed itself', () => issueTicket(agent, { audience: 'agent', method: 'POST', path: '/mcp', body: mcpBody, user }, NOW)],
        ['a gateway ticket for a service, not a user', () => issueTicket(gateway, { audience: 'agent', method: 'POST', path: '/mcp', body: mcpBody }, NOW)],
        ['garbage', () => 'v1.e30.x'],
      ])('when the agent brings %s, then it is refused', (_name, proof) => {
        expect(reasonOf(issueTicket(agent, { ...request, user: undefined, onBehalfOf: proof() }, NOW))).toBe('not a principal its signer may vouch for');
      });

      test('when another part brings the gateway\'s ticket for the agent, then it is refused (only the agent acts for users)', () => {
        expect(reasonOf(issueTicket(devSigningKey('statistics'), { ...request, user: undefined, onBehalfOf: gatewayToAgent }, NOW))).toBe('not a principal its signer may vouch for');
      });
    });
  });
});

describe('tagged tickets (a key shared by the two parts of one hop)', () => {
  const issuesKeys = keysOf('issues');
  const check = (header: string, keys: Parameters<typeof checkTicket>[1] = issuesKeys, expected = received) => {
    const result = checkTicket(header, keys, expected, NOW);
    return result.ok ? result.principal : result.reason;
  };

  test('when the gateway tags a ticket for the issues service, then it is no signature and the issues service gets the user', () => {
    const ticket = issueTicket(keysOf('gateway'), request, NOW);
    expect(ticket).toMatch(/^m1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(check(ticket)).toEqual(user);
  });

  test('when a service tags a call to another, then that service accepts it as the caller', () => {
    const call: TicketRequest = { audience: 'access', method: 'GET', path: '/internal/acl/users/7' };
    const ticket = issueTicket(keysOf('statistics'), call, NOW);
    expect(check(ticket, keysOf('access'), { audience: 'access', method: 'GET', path: '/internal/acl/users/7', bodyDigest: bodyDigest(undefined) })).toEqual({ kind: 'service', service: 'statistics' });
  });

  test('when a tagged ticket is checked by any part but the one it is addressed to, then it is refused (no other part holds the pair key)', () => {
    const ticket = issueTicket(keysOf('gateway'), request, NOW);
    for (const other of SIGNERS.filter((s) => s !== 'issues')) {
      expect(check(ticket, keysOf(other), { ...received, audience: other })).not.toEqual(user);
    }
    // With public keys alone (no private key of its own), nobody can check a tagged ticket.
    expect(check(ticket, trusted)).toBe('bad signature');
  });

  test('when a part that is not the gateway tags a ticket claiming to be the gateway, then the service refuses it', () => {
    // statistics shares a key with issues, but not the gateway's key with issues.
    const [, payload] = issueTicket(keysOf('gateway'), request, NOW).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = macPayload(sharedKeys(devSigningKey('statistics'), trusted).with('issues'), claims);
    expect(check(forged)).toBe('bad signature');
    // The same tag under the gateway–issues pair key passes: only the key was wrong above.
    expect(check(macPayload(sharedKeys(gateway, trusted).with('issues'), claims))).toEqual(user);
  });

  test('when a ticket is tagged under the key the two parts share for events, then it is refused (each use has its own key)', () => {
    const [, payload] = issueTicket(keysOf('gateway'), request, NOW).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forEvents = sharedKeys(gateway, trusted, 'event').with('issues');
    expect(forEvents).not.toEqual(sharedKeys(gateway, trusted).with('issues'));
    // Both parts derive the same key for a use: the pair and the use bind it, not who asks.
    expect(forEvents).toEqual(sharedKeys(devSigningKey('issues'), trusted, 'event').with('gateway'));
    expect(check(macPayload(forEvents, claims))).toBe('bad signature');
  });

  test('when any byte of a tagged ticket changes, or its tag is missing, doubled in form or not base64url, then it is refused', () => {
    const [head, payload, tag] = issueTicket(keysOf('gateway'), request, NOW).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const changedPayload = Buffer.from(JSON.stringify({ ...claims, p: '/api/v1/issues?x=2' })).toString('base64url');
    expect(check(`${head}.${changedPayload}.${tag}`)).toBe('bad signature');
    expect(check(`${head}.${payload}`)).toBe('bad signature');
    // Another last character that still ends 32 bytes canonically ('A' and 'E' both do): the tag's last bits changed.
    expect(check(`${head}.${payload}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'E' : 'A'}`)).toBe('bad signature');
    expect(check(`${head}.${payload}.${tag}=`)).toBe('bad signature');
    expect(check(`v1.${payload}.${tag}`)).toBe('bad signature');
    expect(check(`${head}.${payload}.${tag}.${tag}.${tag}.${tag}.${tag}`)).toBe('bad signature');
  });

  test('when the issues service rotates its key, then tickets carry a tag for each of its trusted keys and either half of the rotation accepts them', () => {
    const next = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const rotating = parseTrustedKeys(`${devTrustedKeysText()},issues:${next.publicKey}`);
    const ticket = issueTicket(keysOf('gateway', rotating), request, NOW);
    expect(ticket.split('.')).toHaveLength(4);
    expect(check(ticket, { key: devSigningKey('issues'), trusted: rotating })).toEqual(user);
    expect(check(ticket, { key: next, trusted: rotating })).toEqual(user);
  });

  test('when a signed ticket arrives at a service holding its own keys, then it is still accepted', () => {
    expect(check(issueTicket(gateway, request, NOW))).toEqual(user);
  });
});

describe('the agent\'s proofs (the gateway tags its ticket to the agent)', () => {
  const ticket = issueTicket(keysOf('gateway'), toAgent, NOW);
  /** What the agent hands on, from checking the gateway's ticket for the user's /mcp request. */
  const proofsFrom = (header: string, now = NOW) => (checkTicket(header, keysOf('agent'), atAgent, now) as { proofs: Proofs }).proofs;
  const proofs = proofsFrom(ticket);
  const REFUSED = 'not a principal its signer may vouch for';

  test('when the gateway tags its ticket for a user\'s /mcp request, then the agent gets the user and a proof for each service it calls, which that service accepts for the same user', () => {
    expect(ticket).toMatch(/^m1\./);
    expect(checkTicket(ticket, keysOf('agent'), atAgent, NOW)).toMatchObject({ ok: true, principal: user });
    expect(Object.keys(proofs).sort()).toEqual(['access', 'issues', 'notifications', 'statistics']);
    for (const service of AGENT_CALLS) {
      expect(proofs[service]).toMatch(/^m1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(atService(service, proofs[service])).toEqual(user);
    }
  });

  test.each(AGENT_CALLS.flatMap((from) => AGENT_CALLS.filter((to) => to !== from).map((to) => [from, to] as const)))(
    'when the proof for %s is brought to %s, then it is refused (each proof is good at its own service only)',
    (from, to) => {
      expect(atService(to, proofs[from])).toBe(REFUSED);
    },
  );

  test.each(AGENT_CALLS)('when the proof for %s is presented to it as a ticket, then it is refused', (service) => {
    const asTicket = checkTicket(proofs[service], keysOf(service), { audience: service, method: 'GET', path: '/api/v1/me', bodyDigest: bodyDigest(undefined) }, NOW);
    expect(asTicket).toEqual({ ok: false, reason: 'bad signature' });
  });

  test('when a proof is brought within its lifetime (plus the skew), then it is accepted, and after that it is refused as the ticket it came with would be', () => {
    const issuedAt = Math.floor(NOW / 1000) * 1000;
    const end = issuedAt + (TICKET_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000;
    // The agent's own ticket is fresh each time: only the proof ages.
    expect(atService('issues', proofs.issues, end - 1)).toEqual(user);
    expect(atService('issues', proofs.issues, end)).toBe(REFUSED);
    // A minute old: the agent got it in time, and brought it too late.
    expect(atService('issues', proofsFrom(issueTicket(keysOf('gateway'), toAgent, NOW - 60_000), NOW - 60_000).issues)).toBe(REFUSED);
  });

  describe('forged and altered proofs', () => {
    const claims = claimsOf(proofs.issues);
    const gatewayIssues = sharedKeys(gateway, trusted).with('issues');

    test('when the proof\'s own claims are tagged again under the gateway–issues key, then issues accepts them (only the change is at fault below)', () => {
      expect(atService('issues', macPayload(gatewayIssues, claims))).toEqual(user);
    });

    test.each<[string, AgentCall, () => string]>([
      ['tagged by the agent (it holds no key the gateway shares)', 'issues', () => macPayload(sharedKeys(agent, trusted).with('issues'), claims)],
      ['tagged by statistics for issues', 'issues', () => macPayload(sharedKeys(devSigningKey('statistics'), trusted).with('issues'), claims)],
      ['tagged by issues for statistics', 'statistics', () => macPayload(sharedKeys(devSigningKey('issues'), trusted).with('statistics'), { ...claims, aud: 'statistics' })],
      ['signed by the gateway, not tagged (a signed proof is a ticket to the agent)', 'issues', () => signPayload(gateway, claims)],
      ['of the use of a ticket', 'issues', () => macPayload(gatewayIssues, { ...claims, use: 'ticket' })],
      ['naming another issuer', 'issues', () => macPayload(gatewayIssues, { ...claims, iss: 'access' })],
      ['addressed to another service', 'issues', () => macPayload(gatewayIssues, { ...claims, aud: 'statistics' })],
      ['addressed to the agent', 'issues', () => macPayload(gatewayIssues, { ...claims, aud: 'agent' })],
      ['living longer than a ticket', 'issues', () => macPayload(gatewayIssues, { ...claims, exp: claims.exp + 3600 })],
      ['for no user', 'issues', () => macPayload(gatewayIssues, { ...claims, vch: undefined })],
      ['naming a bare user beside its vouch', 'issues', () => macPayload(gatewayIssues, { ...claims, sub: user })],
      ['for a user with an extra field', 'issues', () => macPayload(gatewayIssues, { ...claims, vch: vouchOf({ ...user, admin: true }) })],
      ['changed after tagging', 'issues', () => {
        const [head, , tag] = proofs.issues.split('.');
        return `${head}.${Buffer.from(JSON.stringify({ ...claims, vch: vouchOf({ ...user, workspaceRole: 'admin' }) })).toString('base64url')}.${tag}`;
      }],
      ['with its tag changed', 'issues', () => proofs.issues.slice(0, -1) + (proofs.issues.endsWith('A') ? 'E' : 'A')],
      // Its proofs left out: the whole of it would not fit in the agent's header.
      ['that is the gateway\'s ticket to the agent', 'issues', () => macPayload(sharedKeys(gateway, trusted).with('agent'), { ...claimsOf(ticket), prf: undefined })],
      ['garbage', 'issues', () => 'm1.e30.x'],
    ])('when the agent brings a proof %s, then %s refuses it', (_name, service, proof) => {
      expect(atService(service, proof())).toBe(REFUSED);
    });
  });

  test('when the gateway\'s tagged ticket to the agent lacks a proof, then the agent refuses it (it could not act for the user)', () => {
    const gatewayAgent = sharedKeys(gateway, trusted).with('agent');
    const { prf, ...rest } = claimsOf(ticket);
    expect(checkTicket(macPayload(gatewayAgent, rest), keysOf('agent'), atAgent, NOW)).toEqual({ ok: false, reason: 'no proofs' });
    expect(checkTicket(macPayload(gatewayAgent, { ...rest, prf: { ...prf, statistics: undefined } }), keysOf('agent'), atAgent, NOW)).toEqual({ ok: false, reason: 'no proofs' });
    expect(checkTicket(macPayload(gatewayAgent, { ...rest, prf }), keysOf('agent'), atAgent, NOW)).toMatchObject({ ok: true, proofs: prf });
  });

  test('when every part that checks them rotates its key and the user\'s ids are at their largest, then the ticket to the agent still fits the header and its proofs still pass', () => {
    const rotating = parseTrustedKeys(
      [devTrustedKeysText(), ...(['agent', ...AGENT_CALLS] as const).map((signer) => `${signer}:${signingKeyFromSeed(signer, randomBytes(32).toString('base64url')).publicKey}`)].join(','),
    );
    const largest: UserPrincipal = { kind: 'user', userId: Number.MAX_SAFE_INTEGER, workspaceId: Number.MAX_SAFE_INTEGER, workspaceRole: 'member', tokenId: Number.MAX_SAFE_INTEGER };
    const big = issueTicket(keysOf('gateway', rotating), { ...toAgent, user: largest }, NOW);
    const check = checkTicket(big, keysOf('agent', rotating), atAgent, NOW);
    expect(check).toMatchObject({ ok: true, principal: largest });
    for (const service of AGENT_CALLS) expect(atService(service, (check as { proofs: Proofs }).proofs[service])).toEqual(largest);
  });

  test('when a service (not the agent) brings a proof, then it is refused (only the agent acts for users)', () => {
    const call = { audience: 'issues' as const, method: 'GET', path: '/api/v1/me' };
    const check = checkTicket(issueTicket(keysOf('statistics'), { ...call, onBehalfOf: proofs.issues }, NOW), keysOf('issues'), { ...call, bodyDigest: bodyDigest(undefined) }, NOW);
    expect(check).toEqual({ ok: false, reason: REFUSED });
  });
});

describe('a service\'s key in other hands speaks as that service, never as the gateway for a user', () => {
  const REFUSED = 'not a principal its signer may vouch for';
  /** Someone's user, of another workspace, whom no gateway ticket names here. */
  const victim: UserPrincipal = { kind: 'user', userId: 99, workspaceId: 8, workspaceRole: 'admin', tokenId: 5 };
  const iat = Math.floor(NOW / 1000);
  const call = (service: Signer) => ({ audience: service, method: 'GET', path: '/api/v1/me' });
  const at = (service: Signer, header: string, now = NOW) => {
    const check = checkTicket(header, keysOf(service), { ...call(service), bodyDigest: bodyDigest(undefined) }, now);
    return check.ok ? check.principal : check.reason;
  };
  /**
   * What the holder of `service`'s private key alone (and every public key) makes: a text
   * tagged under the key the gateway shares with `service`, which `service` derives too.
   */
  const taggedAsGatewayBy = (service: Signer, claims: object) => macPayload(sharedKeys(devSigningKey(service), trusted).with('gateway'), claims);
  const ticketClaims = (service: Signer, who: object) => ({ use: 'ticket', iss: 'gateway', ...call(service), aud: service, m: 'GET', p: '/api/v1/me', bd: bodyDigest(undefined), iat, exp: iat + TICKET_TTL_SECONDS, jti: randomUUID(), ...who });

  test.each(AGENT_CALLS)('when the gateway tags a ticket for a user to %s, then it carries the gateway\'s signed vouch, no bare user, and %s accepts it', (service) => {
    const ticket = issueTicket(keysOf('gateway'), { ...call(service), user }, NOW);
    expect(ticket).toMatch(/^m1\./);
    expect(claimsOf(ticket)).not.toHaveProperty('sub');
    expect(claimsOf(claimsOf(ticket).vch)).toEqual({ use: 'vouch', iss: 'gateway', sub: user, iat, exp: iat + VOUCH_TTL_SECONDS });
    expect(at(service, ticket)).toEqual(user);
  });

  test.each(AGENT_CALLS)('when the holder of the %s key alone tags a gateway ticket for a user of its choice to it, then it is refused', (service) => {
    expect(at(service, taggedAsGatewayBy(service, ticketClaims(service, { sub: victim })))).toBe(REFUSED);
  });

  test.each(AGENT_CALLS)('when the holder of the %s key alone adds a vouch it signed itself, naming the gateway, then it is refused', (service) => {
    const ownVouch = vouchOf(victim, iat, devSigningKey(service));
    expect(at(service, taggedAsGatewayBy(service, ticketClaims(service, { vch: ownVouch })))).toBe(REFUSED);
  });

  test('when the holder of the agent key alone tags a gateway ticket to the agent for a user, with proofs it tagged too, then the agent refuses it, and so does every service its proofs are brought to', () => {
    const ticket = taggedAsGatewayBy('agent', { ...ticketClaims('agent', { sub: victim }), m: 'POST', p: '/mcp', bd: bodyDigest(mcpBody), prf: { access: 'm1.e30.x', issues: 'm1.e30.x', statistics: 'm1.e30.x' } });
    expect(checkTicket(ticket, keysOf('agent'), atAgent, NOW)).toEqual({ ok: false, reason: REFUSED });
  });

  test.each(AGENT_CALLS)('when the holder of the %s key alone tags a gateway proof for a user and the agent brings it there, then it is refused', (service) => {
    const proof = taggedAsGatewayBy(service, { use: 'proof', iss: 'gateway', aud: service, sub: victim, iat, exp: iat + TICKET_TTL_SECONDS, jti: randomUUID() });
    expect(atService(service, proof)).toBe(REFUSED);
    const withOwnVouch = taggedAsGatewayBy(service, { use: 'proof', iss: 'gateway', aud: service, vch: vouchOf(victim, iat, devSigningKey(service)), iat, exp: iat + TICKET_TTL_SECONDS, jti: randomUUID() });
    expect(atService(service, withOwnVouch)).toBe(REFUSED);
  });

  test('when the holder of the issues key names a user beside a genuine vouch for another, then it is refused (a tagged ticket names no bare user)', () => {
    const genuine = claimsOf(issueTicket(keysOf('gateway'), { ...call('issues'), user }, NOW)).vch;
    expect(at('issues', taggedAsGatewayBy('issues', ticketClaims('issues', { vch: genuine, sub: victim })))).toBe(REFUSED);
  });

  test('when the holder of the issues key replays a vouch it read at issues, then no other service accepts it, and issues only while the vouch lives (what reaches a service is its holder\'s to read)', () => {
    const read = claimsOf(issueTicket(keysOf('gateway'), { ...call('issues'), user }, NOW)).vch;
    // To another service it can tag under no key the gateway shares there: it tags as the issues service.
    for (const service of ['access', 'statistics'] as const) {
      const other = macPayload(sharedKeys(devSigningKey('issues'), trusted).with(service), ticketClaims(service, { vch: read }));
      expect(at(service, other)).toBe('bad signature');
    }
    const replayed = (now: number) => {
      const at0 = Math.floor(now / 1000);
      return at('issues', taggedAsGatewayBy('issues', { ...ticketClaims('issues', { vch: read }), iat: at0, exp: at0 + TICKET_TTL_SECONDS }), now);
    };
    expect(replayed(NOW + 60_000)).toEqual(user);
    expect(replayed((iat + VOUCH_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000)).toBe(REFUSED);
  });

  describe('vouches', () => {
    const gatewayIssues = sharedKeys(gateway, trusted).with('issues');
    /** A ticket as the gateway tags it to issues, with `vch` for its vouch: only the vouch is at fault below. */
    const withVouch = (vch: string, now = NOW) => {
      const at0 = Math.floor(now / 1000);
      return at('issues', macPayload(gatewayIssues, { ...ticketClaims('issues', { vch }), iat: at0, exp: at0 + TICKET_TTL_SECONDS }), now);
    };

    test('when a vouch is good, then the ticket carrying it is accepted until the vouch expires (plus the skew), and refused after', () => {
      const vouch = vouchOf(user);
      expect(withVouch(vouch)).toEqual(user);
      const end = (iat + VOUCH_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000;
      expect(withVouch(vouch, end - 1000)).toEqual(user);
      expect(withVouch(vouch, end)).toBe(REFUSED);
    });

    test.each<[string, () => string]>([
      ['that has expired', () => vouchOf(user, iat - VOUCH_TTL_SECONDS - 60)],
      ['issued a minute in the future', () => vouchOf(user, iat + 60)],
      ['made to live an hour', () => vouchOf(user, iat, gateway, { exp: iat + 3600 })],
      ['without a lifetime', () => vouchOf(user, iat, gateway, { exp: undefined })],
      ['signed by the issues service\'s key, naming the gateway', () => vouchOf(user, iat, devSigningKey('issues'))],
      ['signed by the access service\'s key, naming the gateway', () => vouchOf(user, iat, devSigningKey('access'))],
      ['signed by the agent, naming itself', () => vouchOf(user, iat, agent, { iss: 'agent' })],
      ['signed by a gateway key no one trusts', () => vouchOf(user, iat, signingKeyFromSeed('gateway', Buffer.alloc(32, 7).toString('base64url')))],
      ['of another use (the gateway\'s signed ticket)', () => issueTicket(gateway, { ...call('issues'), user }, NOW)],
      ['of no use', () => vouchOf(user, iat, gateway, { use: undefined })],
      ['for a user with an extra field', () => vouchOf({ ...user, admin: true })],
      ['for a service', () => vouchOf({ kind: 'service', service: 'issues' })],
      ['tagged, not signed', () => macPayload(gatewayIssues, { use: 'vouch', iss: 'gateway', sub: user, iat, exp: iat + VOUCH_TTL_SECONDS })],
      ['changed after signing', () => {
        const [head, , signature] = vouchOf(user).split('.');
        return `${head}.${Buffer.from(JSON.stringify({ use: 'vouch', iss: 'gateway', sub: victim, iat, exp: iat + VOUCH_TTL_SECONDS })).toString('base64url')}.${signature}`;
      }],
      ['longer than any vouch', () => vouchOf({ ...user, padding: 'x'.repeat(600) })],
      ['garbage', () => 'v1.e30.x'],
    ])('when a ticket carries a vouch %s, then it is refused', (_name, vouch) => {
      expect(withVouch(vouch())).toBe(REFUSED);
    });

    test('when a service checks many tickets of one user, then it verifies their vouch once', () => {
      const own = parseTrustedKeys(devTrustedKeysText());
      const gatewayKeys: TicketKeys = { key: gateway, trusted: own };
      for (let i = 0; i < 5; i++) {
        const ticket = issueTicket(gatewayKeys, { ...call('issues'), user }, NOW + i * 1000);
        expect(checkTicket(ticket, { key: devSigningKey('issues'), trusted: own }, { ...call('issues'), bodyDigest: bodyDigest(undefined) }, NOW + i * 1000)).toMatchObject({ ok: true, principal: user });
      }
      expect(vouchReaderOf(own)).toMatchObject({ verifications: 1, size: 1 });
    });

    test('when the gateway\'s vouch for a user nears its end, then the gateway signs a new one, so a ticket never carries one about to expire', () => {
      const gatewayKeys: TicketKeys = { key: gateway, trusted };
      const vouchAt = (now: number) => claimsOf(issueTicket(gatewayKeys, { ...call('issues'), user }, now)).vch as string;
      const first = vouchAt(NOW);
      expect(vouchAt(NOW + (VOUCH_TTL_SECONDS - 61) * 1000)).toBe(first);
      const renewed = vouchAt(NOW + (VOUCH_TTL_SECONDS - 59) * 1000);
      expect(renewed).not.toBe(first);
      expect(claimsOf(renewed).exp - claimsOf(renewed).iat).toBe(VOUCH_TTL_SECONDS);
      // Each principal its own: another token or role of the same user is another vouch.
      expect(vouchAt(NOW)).not.toBe(claimsOf(issueTicket(gatewayKeys, { ...call('issues'), user: { ...user, tokenId: 43 } }, NOW)).vch);
    });

    test('when more distinct vouches than it may remember arrive, then a service remembers no more than that, forgetting the oldest first', () => {
      const own = parseTrustedKeys(devTrustedKeysText());
      const reader = vouchReaderOf(own);
      const vouches = Array.from({ length: VOUCH_MEMO_MAX + 1 }, (_, i) => vouchOf({ ...user, userId: i + 1 }));
      for (const vouch of vouches) expect(reader.read(vouch, NOW)).not.toBeNull();
      expect(reader).toMatchObject({ size: VOUCH_MEMO_MAX, verifications: VOUCH_MEMO_MAX + 1 });
      // The newest is remembered, the oldest verified again.
      reader.read(vouches[VOUCH_MEMO_MAX], NOW);
      expect(reader.verifications).toBe(VOUCH_MEMO_MAX + 1);
      reader.read(vouches[0], NOW);
      expect(reader).toMatchObject({ size: VOUCH_MEMO_MAX, verifications: VOUCH_MEMO_MAX + 2 });
    });

    test('when the vouches it remembers have expired, then a service forgets them as new ones come', () => {
      const reader = vouchReader(trusted, 100);
      for (let i = 0; i < 10; i++) reader.read(vouchOf({ ...user, userId: i + 1 }), NOW);
      expect(reader.size).toBe(10);
      const later = NOW + (VOUCH_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000;
      expect(reader.read(vouchOf(user, Math.floor(later / 1000)), later)).toEqual(user);
      expect(reader.size).toBe(1);
    });
  });
});

describe('INTERNAL_TICKETS=signed (a rolling upgrade)', () => {
  test('when a part is set to sign its tickets, then it signs them, and a service holding its own keys accepts them', () => {
    const ticket = issueTicket({ key: gateway, trusted, tagTickets: false }, request, NOW);
    expect(ticket.startsWith('v1.')).toBe(true);
    expect(checkTicket(ticket, { key: devSigningKey('issues'), trusted }, received, NOW)).toEqual(expect.objectContaining({ ok: true, principal: user }));
    // What a service from before tagged tickets checks with: the public keys alone.
    expect(checkTicket(ticket, trusted, received, NOW)).toEqual(expect.objectContaining({ ok: true, principal: user }));
  });

  test('when the gateway signs, then its ticket to the agent carries no proofs and the agent hands the ticket itself on, which every service accepts', () => {
    const ticket = issueTicket({ key: gateway, trusted, tagTickets: false }, toAgent, NOW);
    expect(ticket).toMatch(/^v1\./);
    expect(claimsOf(ticket)).not.toHaveProperty('prf');
    expect(checkTicket(ticket, keysOf('agent'), atAgent, NOW)).toMatchObject({ ok: true, principal: user, proofs: { access: ticket, issues: ticket, statistics: ticket } });
    for (const service of AGENT_CALLS) {
      expect(atService(service, ticket)).toEqual(user);
      // The agent signing too, as a service from before tagged tickets checks it: with public keys alone.
      const call = { audience: service, method: 'GET', path: '/api/v1/me' };
      const signedCall = issueTicket({ key: agent, trusted, tagTickets: false }, { ...call, onBehalfOf: ticket }, NOW);
      expect(checkTicket(signedCall, trusted, { ...call, bodyDigest: bodyDigest(undefined) }, NOW)).toMatchObject({ ok: true, principal: user });
    }
  });

  test('when a service checks with public keys alone (before tagged tickets), then a tagged proof gets no user from it', () => {
    const proofs = (checkTicket(issueTicket(keysOf('gateway'), toAgent, NOW), keysOf('agent'), atAgent, NOW) as { proofs: Proofs }).proofs;
    const call = { audience: 'issues' as const, method: 'GET', path: '/api/v1/me' };
    const signedCall = issueTicket({ key: agent, trusted, tagTickets: false }, { ...call, onBehalfOf: proofs.issues }, NOW);
    expect(checkTicket(signedCall, trusted, { ...call, bodyDigest: bodyDigest(undefined) }, NOW)).toEqual({ ok: false, reason: 'not a principal its signer may vouch for' });
  });
});
