import { describe, expect, it } from 'vitest';
import { splitHighlights } from './highlight';
import { revealControls } from './visible-controls';

describe('highlighting trace text', () => {
  it('an evidence quote is cut out of the text as its own segment, the rest kept verbatim', () => {
    const text = 'The capital is <b>Lyon</b>, said the retriever.';
    const segments = splitHighlights(text, [{ text: '<b>Lyon</b>', kind: 'evidence', caseSensitive: true }]);
    expect(segments).toEqual([
      { text: 'The capital is ', mark: null },
      { text: '<b>Lyon</b>', mark: 'evidence' },
      { text: ', said the retriever.', mark: null },
    ]);
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });

  it('a search matches regardless of case, and evidence wins where both overlap', () => {
    const segments = splitHighlights('Paris paris PARIS', [
      { text: 'paris', kind: 'search', caseSensitive: false },
      { text: 'paris PA', kind: 'evidence', caseSensitive: true },
    ]);
    expect(segments).toEqual([
      { text: 'Paris', mark: 'search' },
      { text: ' ', mark: null },
      { text: 'paris PA', mark: 'evidence' },
      { text: 'RIS', mark: 'search' },
    ]);
  });

  it('text without matches comes back whole', () => {
    expect(splitHighlights('nothing here', [{ text: 'zzz', kind: 'search', caseSensitive: false }])).toEqual([{ text: 'nothing here', mark: null }]);
  });
});

describe('bidirectional and invisible controls', () => {
  it('a right-to-left override is shown as a visible code point, not applied', () => {
    const pieces = revealControls('admin\u202Egnp.exe');
    expect(pieces).toEqual([
      { text: 'admin', control: null },
      { text: 'U+202E', control: '\u202E' },
      { text: 'gnp.exe', control: null },
    ]);
  });

  it('zero-width characters and isolates are revealed too', () => {
    expect(revealControls('a\u200Bb\u2066c\u2069').filter((p) => p.control).map((p) => p.text)).toEqual(['U+200B', 'U+2066', 'U+2069']);
  });

  it('ordinary right-to-left text is left alone', () => {
    expect(revealControls('שלום world')).toEqual([{ text: 'שלום world', control: null }]);
  });
});

import { changedPaths } from './json-diff';

describe('comparing two steps side by side', () => {
  it('only the leaves that differ are marked, including keys present on one side', () => {
    const a = { country: 'Aurelia', measure: 'population', filters: ['city'], extra: 1 };
    const b = { country: 'Aurelia', measure: 'metro_population', filters: ['city', 'metro'] };
    expect([...changedPaths(a, b)].sort()).toEqual(['/extra', '/filters/1', '/measure']);
  });

  it('two different strings mark the whole value', () => {
    expect([...changedPaths('yes', 'no')]).toEqual(['']);
    expect(changedPaths({ a: 1 }, { a: 1 }).size).toBe(0);
  });
});
