import { canonicalJson, requestFingerprint } from '../src/idempotency';

describe('what counts as the same request under an Idempotency-Key', () => {
  test('when objects differ only in the order of their fields, at any depth, then their canonical JSON is the same', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  test('when arrays differ in order, or values differ, then the canonical JSON differs', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson(undefined)).toBe('null');
  });

  test('when the method, the path or the body differ, then the fingerprint differs; field order does not', () => {
    const base = requestFingerprint('POST', '/api/v1/issues', { title: 't', queue_id: 1 });
    expect(requestFingerprint('POST', '/api/v1/issues', { queue_id: 1, title: 't' })).toBe(base);
    expect(requestFingerprint('PUT', '/api/v1/issues', { queue_id: 1, title: 't' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/issues/WEB-1/comments', { queue_id: 1, title: 't' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/issues', { queue_id: 2, title: 't' })).not.toBe(base);
  });
});
