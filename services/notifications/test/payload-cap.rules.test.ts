import { EVENT_LIMITS, PublicEvent } from '@tracker/contracts';
import { cappedJson, prefixWithin } from '../src/domain/payload-cap.rules';
import { publicEventOf } from '../src/domain/public-event.rules';
import { events, issueState, queueState } from './fixtures';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const draftOf = (event: Parameters<typeof publicEventOf>[0]) => publicEventOf(event)!.event;

describe('the 64 KiB cap of a public event', () => {
  test('an event within the cap is its JSON as it is', () => {
    const event = draftOf(events.issueCreated(issueState(queueState(1), { description: 'short' })));
    expect(cappedJson(structuredClone(event))).toBe(JSON.stringify(event));
  });

  test('a 100,000-character description is cut to what fits, marked, and the rest of the event is whole', () => {
    const issue = issueState(queueState(1), { description: 'é'.repeat(100_000), title: 'Big' });
    const text = cappedJson(draftOf(events.issueCreated(issue)));
    expect(bytes(text)).toBeLessThanOrEqual(EVENT_LIMITS.payloadBytes);
    expect(bytes(text)).toBeGreaterThan(EVENT_LIMITS.payloadBytes - 16);
    const parsed = JSON.parse(text);
    expect(PublicEvent.parse(parsed)).toEqual(parsed);
    expect(parsed.data.issue).toMatchObject({ title: 'Big', description_truncated: true });
    expect('é'.repeat(100_000).startsWith(parsed.data.issue.description)).toBe(true);
  });

  test('an update whose new and old descriptions are both long cuts the longer first, then the other, each marked', () => {
    const issue = issueState(queueState(1), { description: 'n'.repeat(90_000) });
    const event = events.issueUpdated(issue, [{ field: 'description', from: 'o'.repeat(60_000), to: 'n'.repeat(1000), from_truncated: false, to_truncated: true }]);
    const parsed = JSON.parse(cappedJson(draftOf(event)));
    expect(parsed.data.issue.description_truncated).toBe(true);
    expect(bytes(JSON.stringify(parsed))).toBeLessThanOrEqual(EVENT_LIMITS.payloadBytes);
    // The new description alone could not make room: both are cut.
    expect(parsed.data.issue.description.length + parsed.data.previous.description.length).toBeLessThan(65_536);
    expect(PublicEvent.parse(parsed)).toEqual(parsed);
  });

  test('a comment of 50,000 four-byte characters is cut between characters, never inside one', () => {
    const issue = issueState(queueState(1));
    const body = '😀'.repeat(25_000) + 'x'.repeat(1);
    const parsed = JSON.parse(cappedJson(draftOf(events.commentAdded(issue, body))));
    expect(parsed.data.comment.body_truncated).toBe(true);
    expect(parsed.data.comment.body.length % 2).toBe(0);
    expect(body.startsWith(parsed.data.comment.body)).toBe(true);
    expect(/[\uD800-\uDBFF]$/.test(parsed.data.comment.body)).toBe(false);
  });

  test('when titles and labels alone outgrow the cap (characters JSON escapes six bytes wide), `previous` is left empty and says so', () => {
    const wide = '\u0001'.repeat(100);
    const labels = Array.from({ length: 50 }, (_, i) => `${i}${wide}`.slice(0, 100));
    const issue = issueState(queueState(1), { labels, title: '\u0002'.repeat(500), description: 'd'.repeat(100) });
    const event = events.issueUpdated(issue, [
      { field: 'labels', from: labels.map((l) => `${l.slice(0, 99)}`), to: labels },
      { field: 'title', from: '\u0003'.repeat(500), to: issue.title },
    ]);
    const text = cappedJson(draftOf(event));
    expect(bytes(text)).toBeLessThanOrEqual(EVENT_LIMITS.payloadBytes);
    const parsed = JSON.parse(text);
    expect(parsed.data).toMatchObject({ previous: {}, previous_truncated: true, issue: { labels } });
    expect(PublicEvent.parse(parsed)).toEqual(parsed);
  });

  test('prefixWithin keeps the longest prefix whose JSON fits, quotes and escapes counted', () => {
    expect(prefixWithin('abcdef', 5)).toBe('abc');
    expect(prefixWithin('a"b"c', 6)).toBe('a"b');
    expect(prefixWithin('a"b"c', 5)).toBe('a"');
    expect(prefixWithin('😀😀', 5)).toBe('');
    expect(prefixWithin('😀😀', 6)).toBe('😀');
    expect(prefixWithin('short', 100)).toBe('short');
  });
});
