import { randomBytes } from 'node:crypto';
import { devTrustedKeysText, parseTrustedKeys, signingKeyFromSeed } from '@tracker/kit/src/signing';
import { bodyDigestOf, checkEventSignature, EVENT_TYPES, eventSourceOf, signEventMessage, type EventEnvelope } from '../src';
import { issueCreated, KEYS, TRUSTED, userUpdated } from './support';

const bytes = (event: EventEnvelope) => Buffer.from(JSON.stringify(event));

describe('event signatures', () => {
  test('every event type has exactly one source, issues or access', () => {
    expect(Object.keys(eventSourceOf).sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.entries(eventSourceOf).filter(([, source]) => source === 'access').map(([type]) => type).sort()).toEqual(['permission.changed', 'user.updated']);
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
