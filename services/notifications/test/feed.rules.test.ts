import { PUBLIC_EVENT_TYPES } from '@tracker/contracts';
import { cursorOf, positionOf, typesOf } from '../src/domain/feed.rules';

describe('feed cursors', () => {
  test.each([0n, 1n, 124n, 2n ** 63n - 1n])('the cursor of position %s names it again', (position) => {
    const cursor = cursorOf(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(positionOf(cursor)).toBe(position);
  });

  test.each(['', 'abc', 'c1_', 'c1_!!', 'c2_MTI0', `c1_${Buffer.from('012').toString('base64url')}`, `c1_${Buffer.from('-1').toString('base64url')}`, `c1_${Buffer.from('9223372036854775808').toString('base64url')}`, `c1_${Buffer.from('1e3').toString('base64url')}`])(
    'the text %j is no cursor',
    (text) => {
      expect(positionOf(text)).toBeNull();
    },
  );
});

describe('the types filter', () => {
  test('types and trailing-* patterns select the known types, each once', () => {
    expect(typesOf('issue.*')).toEqual({ ok: true, types: ['issue.created', 'issue.updated'] });
    expect(typesOf('comment.added, issue.created,issue.*')).toEqual({ ok: true, types: ['comment.added', 'issue.created', 'issue.updated'] });
    expect(typesOf('*')).toEqual({ ok: true, types: [...PUBLIC_EVENT_TYPES] });
    expect(typesOf('user*')).toEqual({ ok: true, types: ['user.created', 'user.updated'] });
  });

  test('an unknown type, a pattern of none, an empty item or an overlong list is refused, naming each', () => {
    expect(typesOf('issue.deleted,issue.created')).toEqual({ ok: false, errors: [{ path: 'types', message: '"issue.deleted" is no event type and no pattern of one' }] });
    expect(typesOf('ticket.*')).toMatchObject({ ok: false, errors: [{ path: 'types' }] });
    expect(typesOf('issue.created,')).toEqual({ ok: false, errors: [{ path: 'types', message: 'must not hold an empty item' }] });
    expect(typesOf('*,'.repeat(300))).toMatchObject({ ok: false, errors: [{ path: 'types', message: 'must be at most 500 characters' }] });
  });
});
