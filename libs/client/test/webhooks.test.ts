import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/webhooks';

/** The verifier integrators use, against what the standardwebhooks library itself signs. */
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const event = { id: 'evt_1', type: 'issue.created', timestamp: '2026-01-01T00:00:00.000Z', workspace_id: 1, data: { title: 'Café ☕' } };
const body = JSON.stringify(event);

function signed(options: { at?: Date; id?: string; with?: string; payload?: string } = {}) {
  const at = options.at ?? new Date();
  const id = options.id ?? 'evt_1';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.with ?? secret).sign(id, at, options.payload ?? body),
  };
}

const refused = (run: () => unknown, message: RegExp) => {
  expect(run).toThrow(WebhookVerificationError);
  expect(run).toThrow(message);
};

describe('verifyWebhook', () => {
  test('a delivery signed by the standardwebhooks library is taken, and its event answered, from a string, bytes or fetch Headers', () => {
    const headers = signed();
    expect(verifyWebhook(secret, headers, body)).toEqual(event);
    expect(verifyWebhook(secret, headers, Buffer.from(body))).toEqual(event);
    expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).toEqual(event);
    // Header names in any case, as some frameworks keep them.
    expect(verifyWebhook(secret, { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'Webhook-Signature': headers['webhook-signature'] }, body)).toEqual(event);
  });

  test('several space-separated signatures: one that matches is enough, whatever its place', () => {
    const headers = signed();
    const other = signed({ with: `whsec_${randomBytes(32).toString('base64')}` })['webhook-signature'];
    expect(verifyWebhook(secret, { ...headers, 'webhook-signature': `${other} v2,abc ${headers['webhook-signature']}` }, body)).toEqual(event);
  });

  test('a changed body, id or timestamp is refused', () => {
    const headers = signed();
    refused(() => verifyWebhook(secret, headers, body.replace('Café', 'Cafe')), /No signature of the delivery matches/);
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-id': 'evt_2' }, body), /No signature/);
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, body), /No signature/);
  });

  test('another secret is refused', () => {
    refused(() => verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, signed(), body), /No signature/);
    refused(() => verifyWebhook(secret, signed({ with: `whsec_${randomBytes(32).toString('base64')}` }), body), /No signature/);
  });

  test('a delivery older (or newer) than the tolerance is refused, even well signed; within it, taken', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const at = (seconds: number) => signed({ at: new Date(now.getTime() + seconds * 1000) });
    refused(() => verifyWebhook(secret, at(-301), body, { now }), /too old \(sent 301 s ago; at most 300 s/);
    refused(() => verifyWebhook(secret, at(301), body, { now }), /from the future/);
    expect(verifyWebhook(secret, at(-300), body, { now })).toEqual(event);
    expect(verifyWebhook(secret, at(-1000), body, { now, toleranceSeconds: 1200 })).toEqual(event);
  });

  test('missing or doubled headers, a non-numeric timestamp, a signature of another version, and an empty secret are refused', () => {
    const headers = signed();
    const { 'webhook-signature': _s, ...unsigned } = headers;
    refused(() => verifyWebhook(secret, unsigned, body), /webhook-signature header is missing/);
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-id': ['a', 'b'] }, body), /webhook-id header is missing \(or given more than once\)/);
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': '12abc' }, body), /not whole Unix seconds/);
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, body), /No signature/);
    refused(() => verifyWebhook('whsec_', headers, body), /secret is empty/);
  });

  test('a signed body that is not JSON is refused as such', () => {
    refused(() => verifyWebhook(secret, signed({ payload: 'not json' }), 'not json'), /signed but its body is not JSON/);
  });
});
