import { randomBytes } from 'node:crypto';
import { devTrustedKeysText, macPayload, parseTrustedKeys, sharedKeys, signingKeyFromSeed, type SigningKey } from '@tracker/signing';
import {
  bodyDigestOf,
  checkEventProof,
  checkEventSignature,
  checkEventTag,
  eventTagKeys,
  EVENT_TYPES,
  eventSourceOf,
  signEventMessage,
  tagEventMessage,
  type EventEnvelope,
} from '../src';
import { issueCreated, KEYS, TRUSTED, userUpdated } from './support';

const bytes = (event: EventEnvelope) => Buffer.from(JSON.stringify(event));

describe('event signatures', () => {
  test('every event type has exactly one source, issues or access', () => {
    expect(Object.keys(eventSourceOf).sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.entries(eventSourceOf).filter(([, source]) => source === 'access').map(([type]) => type).sort()).toEqual(['permission.changed', 'user.created', 'user.updated']);
  });

  test('when the source signs the exact body, then the check accepts it', () => {
    const issue = issueCreated();
    const user = userUpdated();
    expect(checkEventSignature(signEventMessage(KEYS.issues, issue, bytes(issue)), issue, bytes(issue), TRUSTED)).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventSignature(signEventMessage(KEYS.access, user, bytes(user)), user, bytes(user), TRUSTED)).toEqual({ ok: true, signer: 'access' });
  });

  test('when there is no signature, then it is unsigned', () => {
    const event = issueCreated();
    for (const header of [undefined, null, '', 42, Buffer.from('v1.x.y')]) {
      expect(checkEventSignature(header, event, bytes(event), TRUSTED)).toEqual({ ok: false, reason: 'unsigned', expected: 'issues' });
    }
  });

  test('when another trusted component signed it, or the source of another type, then it is the wrong source', () => {
    const issue = issueCreated();
    const user = userUpdated();
    for (const key of [KEYS.agent, KEYS.gateway, KEYS.statistics, KEYS.access]) {
      expect(checkEventSignature(signEventMessage(key, issue, bytes(issue)), issue, bytes(issue), TRUSTED)).toEqual({
        ok: false,
        reason: 'wrong_source',
        expected: 'issues',
        claimed: key.signer,
      });
    }
    expect(checkEventSignature(signEventMessage(KEYS.issues, user, bytes(user)), user, bytes(user), TRUSTED)).toMatchObject({
      ok: false,
      reason: 'wrong_source',
      expected: 'access',
      claimed: 'issues',
    });
  });

  test('when the body, the event or the key does not match the signature, then it is a bad signature', () => {
    const event = issueCreated();
    const signed = signEventMessage(KEYS.issues, event, bytes(event));
    const altered = { ...event, data: { issue: { ...event.data.issue, title: 'Altered after signing' } } };
    // The same event serialized differently is another body: the digest is over the exact bytes.
    const reformatted = Buffer.from(JSON.stringify(event, null, 1));
    const other = issueCreated();
    const stranger = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const [head, payload, signature] = signed.split('.');
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), digest: bodyDigestOf(bytes(altered)) })).toString('base64url')}.${signature}`;

    const refusals = [
      checkEventSignature(signed, altered, bytes(altered), TRUSTED),
      checkEventSignature(signed, event, reformatted, TRUSTED),
      checkEventSignature(signed, other, bytes(other), TRUSTED),
      checkEventSignature(signEventMessage(stranger, event, bytes(event)), event, bytes(event), TRUSTED),
      checkEventSignature(tampered, altered, bytes(altered), TRUSTED),
      checkEventSignature('v1.e30.AAAA', event, bytes(event), TRUSTED),
      checkEventSignature(`${signed}x`, event, bytes(event), TRUSTED),
    ];
    expect(refusals.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(Array(refusals.length).fill('bad_signature'));
  });

  test('when the source key is rotated, then both the old and the new key are accepted while both are trusted', () => {
    const next = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const trusted = parseTrustedKeys(`${devTrustedKeysText()},issues:${next.publicKey}`);
    const event = issueCreated();
    expect(checkEventSignature(signEventMessage(next, event, bytes(event)), event, bytes(event), trusted)).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventSignature(signEventMessage(KEYS.issues, event, bytes(event)), event, bytes(event), trusted)).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventSignature(signEventMessage(next, event, bytes(event)), event, bytes(event), TRUSTED)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});

describe('event tags', () => {
  // What the statistics service checks with: its own key and everyone's public keys.
  const consumer = { key: KEYS.statistics, trusted: TRUSTED };
  const publisher = (key: SigningKey, trusted = TRUSTED) => ({ key, trusted });
  const tag = (key: SigningKey, event: EventEnvelope, body = bytes(event)) => tagEventMessage(publisher(key), event, body);

  test('when the source tags the exact body, then the consumer accepts it, by itself and as the proof of a message', () => {
    const issue = issueCreated();
    const user = userUpdated();
    expect(checkEventTag(tag(KEYS.issues, issue), issue, bytes(issue), consumer)).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventTag(tag(KEYS.access, user), user, bytes(user), consumer)).toEqual({ ok: true, signer: 'access' });
    expect(checkEventProof({ signature: undefined, tag: tag(KEYS.issues, issue) }, issue, bytes(issue), consumer)).toEqual({ ok: true, signer: 'issues' });
  });

  test('when a message carries a tag, then the tag decides, not a signature beside it; without one, the signature does', () => {
    const event = issueCreated();
    const signature = signEventMessage(KEYS.issues, event, bytes(event));
    expect(checkEventProof({ signature, tag: undefined }, event, bytes(event), consumer)).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventProof({ signature, tag: tag(KEYS.agent, event) }, event, bytes(event), consumer)).toMatchObject({ ok: false, reason: 'wrong_source' });
    expect(checkEventProof({ signature: undefined, tag: undefined }, event, bytes(event), consumer)).toEqual({ ok: false, reason: 'unsigned', expected: 'issues' });
  });

  test('when another component tagged it, or the source of another type, then it is the wrong source', () => {
    const issue = issueCreated();
    const user = userUpdated();
    for (const key of [KEYS.agent, KEYS.gateway, KEYS.access]) {
      expect(checkEventTag(tag(key, issue), issue, bytes(issue), consumer)).toEqual({ ok: false, reason: 'wrong_source', expected: 'issues', claimed: key.signer });
    }
    expect(checkEventTag(tag(KEYS.issues, user), user, bytes(user), consumer)).toEqual({ ok: false, reason: 'wrong_source', expected: 'access', claimed: 'issues' });
  });

  test('when the body, the event, the key or the use does not match the tag, then it is a bad signature', () => {
    const event = issueCreated();
    const tagged = tag(KEYS.issues, event);
    const altered = { ...event, data: { issue: { ...event.data.issue, title: 'Altered after tagging' } } };
    const other = issueCreated();
    const stranger = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const claims = { signer: 'issues', use: 'event', event_id: event.event_id, type: event.type, digest: bodyDigestOf(bytes(event)) };
    const forStatistics = (use: 'ticket' | 'event') => sharedKeys(KEYS.issues, TRUSTED, use).with('statistics');
    const refusals = [
      checkEventTag(tagged, altered, bytes(altered), consumer),
      checkEventTag(tagged, event, Buffer.from(JSON.stringify(event, null, 1)), consumer),
      checkEventTag(tagged, other, bytes(other), consumer),
      checkEventTag(tag(stranger, event), event, bytes(event), consumer),
      // The right claims under the key issues shares with statistics for tickets: a ticket's key never makes an event's tag.
      checkEventTag(macPayload(forStatistics('ticket'), claims), event, bytes(event), consumer),
      // Under the events' key, but without saying it is an event's proof.
      checkEventTag(macPayload(forStatistics('event'), { ...claims, use: undefined }), event, bytes(event), consumer),
      checkEventTag(macPayload(forStatistics('event'), { ...claims, use: 'proof' }), event, bytes(event), consumer),
      checkEventTag('m1.e30.AAAA', event, bytes(event), consumer),
      checkEventTag(`${tagged}x`, event, bytes(event), consumer),
    ];
    expect(refusals.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(Array(refusals.length).fill('bad_signature'));
    expect(checkEventTag(macPayload(forStatistics('event'), claims), event, bytes(event), consumer)).toEqual({ ok: true, signer: 'issues' });
  });

  test('when a part other than the consumer checks a tag, or the tag was made for another consumer, then it does not verify', () => {
    const event = issueCreated();
    // The access service holds no key shared by issues and statistics.
    expect(checkEventTag(tag(KEYS.issues, event), event, bytes(event), { key: KEYS.access, trusted: TRUSTED })).toMatchObject({ ok: false, reason: 'bad_signature' });
    const forAgent = macPayload(sharedKeys(KEYS.issues, TRUSTED, 'event').with('agent'), { signer: 'issues', use: 'event', event_id: event.event_id, type: event.type, digest: bodyDigestOf(bytes(event)) });
    expect(checkEventTag(forAgent, event, bytes(event), consumer)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  test('when the consumer key is rotated, then the publisher tags under both and either one verifies while both are trusted', () => {
    const next = signingKeyFromSeed('statistics', randomBytes(32).toString('base64url'));
    const trusted = parseTrustedKeys(`${devTrustedKeysText()},statistics:${next.publicKey}`);
    const event = issueCreated();
    const tagged = tagEventMessage(publisher(KEYS.issues, trusted), event, bytes(event));
    // Two tags for statistics (old and new key), one for notifications.
    expect(tagged.split('.')).toHaveLength(5);
    expect(checkEventTag(tagged, event, bytes(event), { key: next, trusted })).toEqual({ ok: true, signer: 'issues' });
    expect(checkEventTag(tagged, event, bytes(event), { key: KEYS.statistics, trusted })).toEqual({ ok: true, signer: 'issues' });
  });

  test('when a trusted key admits no key agreement, then a tag that makes the consumer use it is refused, not a throw', () => {
    // The Ed25519 identity point parses as a public key, but X25519 agreement with it fails.
    const trusted = parseTrustedKeys(`${devTrustedKeysText()},issues:AQ${'A'.repeat(41)}`);
    const event = issueCreated();
    const tagged = tagEventMessage(publisher(KEYS.issues), event, bytes(event));
    expect(() => checkEventTag(tagged, event, bytes(event), { key: KEYS.statistics, trusted })).toThrow();
    expect(checkEventProof({ signature: undefined, tag: tagged }, event, bytes(event), { key: KEYS.statistics, trusted })).toEqual({ ok: false, reason: 'bad_signature', expected: 'issues' });
  });

  test('when the publisher trusts no key of a consumer, or more than a text can carry, then it cannot tag, and says why', () => {
    const withoutStatistics = parseTrustedKeys(devTrustedKeysText().split(',').filter((entry) => !entry.startsWith('statistics:')).join(','));
    expect(() => eventTagKeys(publisher(KEYS.issues, withoutStatistics))).toThrow('cannot tag events: no public key of statistics is trusted (INTERNAL_TRUSTED_KEYS)');
    const five = Array.from({ length: 3 }, () => `statistics:${signingKeyFromSeed('statistics', randomBytes(32).toString('base64url')).publicKey}`);
    expect(() => eventTagKeys(publisher(KEYS.issues, parseTrustedKeys([devTrustedKeysText(), ...five].join(','))))).toThrow('cannot tag events: more than 4 keys');
    // One key of each consumer: statistics and notifications.
    expect(eventTagKeys(publisher(KEYS.issues))).toHaveLength(2);
  });
});
