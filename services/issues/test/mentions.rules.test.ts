import { extractMentions, MAX_MENTIONS_PER_TEXT } from '../src/domain/mentions.rules';

describe('mention extraction', () => {
  test('when a text names keys in any case, then each canonical key comes once, in order of first mention', () => {
    expect(extractMentions('See ops-12, then DEV-3 (and OPS-12 again); web_app-7.')).toEqual(['OPS-12', 'DEV-3', 'WEB_APP-7']);
  });

  test('when a key is glued to letters, digits or underscores, then it is not a mention', () => {
    expect(extractMentions('OPS-1b OPS-1_ 9OPS-2 _OPS-3 é-OPS-4')).toEqual(['OPS-4']);
  });

  test('when a key is surrounded by punctuation, URLs or markdown, then it is a mention', () => {
    expect(extractMentions('[OPS-1](http://x/OPS-2) `OPS-3` "OPS-4"/OPS-5:OPS-6')).toEqual(['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4', 'OPS-5', 'OPS-6']);
  });

  test('when a key-like token is not a valid key, then it is skipped', () => {
    expect(extractMentions('OPS-0 OPS-007 OPS-99999999999 A-1 ABCDEFGHIJKLM-1 UTF-8')).toEqual(['UTF-8']);
  });

  test("when the text names the issue's own key, then it is left out", () => {
    expect(extractMentions('OPS-1 duplicates ops-1 and OPS-2', 'OPS-1')).toEqual(['OPS-2']);
  });

  test('when a text names more keys than the limit, then only the first ones count', () => {
    const text = Array.from({ length: MAX_MENTIONS_PER_TEXT + 50 }, (_, i) => `KK-${i + 1}`).join(' ');
    const keys = extractMentions(text);
    expect(keys).toHaveLength(MAX_MENTIONS_PER_TEXT);
    expect(keys[0]).toBe('KK-1');
  });

  test('when the text is empty or has no keys, then there are no mentions', () => {
    expect(extractMentions('')).toEqual([]);
    expect(extractMentions('nothing to see - here 12-34')).toEqual([]);
  });
});
