import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, webhookHeaders } from '../src/domain/webhook-signature.rules';

/** The Standard Webhooks test vector (its reference libraries' tests). */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: 'evt_1', type: 'issue.created', data: { title: 'Café ☕' } });

describe('webhook signatures (Standard Webhooks 1.0)', () => {
  test('the signature of the standard`s test vector is the one it publishes', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  test('a new secret is whsec_ and the base64 of 32 random bytes, different each time', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  test('the headers sent are accepted by the standardwebhooks library, which answers the event', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'evt_1', now(), body);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Tracker-Webhooks/1.0',
      'webhook-id': 'evt_1',
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  test('a changed body, timestamp or id, or another secret, is refused by the standardwebhooks library', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'evt_1', now(), body);
    const wh = new Webhook(secret);
    expect(() => wh.verify(body.replace('Café', 'Cafe'), headers)).toThrow(/No matching signature/);
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(now() - 1) })).toThrow(/No matching signature/);
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow(/No matching signature/);
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
  });

  test('an attempt signed 10 minutes ago is refused as too old: each retry is signed at its own time', () => {
    const secret = newWebhookSecret();
    expect(() => new Webhook(secret).verify(body, webhookHeaders(secret, 'evt_1', now() - 600, body))).toThrow(/too old/);
  });

  test('a timestamp that is not whole seconds is a programming error', () => {
    expect(() => signWebhook(VECTOR.secret, 'evt_1', Date.now() / 1000, body)).toThrow(/whole Unix seconds/);
  });
});
