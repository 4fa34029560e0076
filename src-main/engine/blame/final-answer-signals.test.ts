import { describe, expect, it } from 'vitest';
import { firstMatch, patternsOf, patternsOfBoth } from './final-answer-signals';

describe('settings patterns compiled once per list', () => {
  it('two lists joined: the first list first, the same compiled array for the same lists, new ones for changed settings', () => {
    const refusals = ["\\bI can(?:no|')t help\\b"];
    const giveUps = ['\\bunable to (?:find|complete)\\b', '(unclosed'];
    const both = patternsOfBoth(refusals, giveUps);
    // The invalid pattern is left out (settings loading reports it), the others kept in order.
    expect(both.map((r) => r.source)).toEqual([refusals[0], giveUps[0]]);
    expect(patternsOfBoth(refusals, giveUps)).toBe(both);
    expect(patternsOf(refusals)).toBe(patternsOf(refusals));
    expect(firstMatch('Sorry, I was unable to find it.', both)).toBe('unable to find');
    // Settings read again are new arrays: their patterns take effect.
    const edited = ['\\bno answer\\b'];
    expect(firstMatch('There is no answer.', patternsOfBoth(refusals, edited))).toBe('no answer');
    expect(firstMatch('There is no answer.', both)).toBeNull();
  });
});
