import { describe, expect, it } from 'vitest';
import { lowerCase, STOPWORDS, stemTerm, termsInto, termsOf, wordsOf } from './text-terms';

// The definition wordsOf keeps, as the regular expression it replaced.
const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;
function wordsByRegex(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(text)) !== null && out.length < max) out.push(m[0].toLowerCase());
  return out;
}

const TEXTS = [
  'Check order ORD-100005 (step 5) against ledger LG-1005.',
  "don't can't it’s rock'n'roll o'2 end' 'start x'",
  'Ünïcödé naïve café Straße ΣΊΣΥΦΟΣ 東京 ٣٤٥ ²³ ½ Ⅻ',
  'math 𝐀𝐁𝐂 emoji 😀 and a lone \ud800 surrogate \udc00x',
  "trailing apostrophe'",
  '',
  '1,200.50 — “quoted” text\twith\nbreaks',
  "a'𝐀b'😀",
];

describe('wordsOf', () => {
  it('finds the words the regular expression found, in every script, with apostrophes and astral letters', () => {
    for (const t of TEXTS) expect(wordsOf(t)).toEqual(wordsByRegex(t));
  });

  it('stops at `max` words', () => {
    const t = TEXTS.join(' ');
    for (const max of [0, 1, 3, 10]) expect(wordsOf(t, max)).toEqual(wordsByRegex(t, max));
  });
});

describe('termsOf', () => {
  it('stems a word without what follows its apostrophe and drops stop words (checked whole: "aren\'t" is not "aren")', () => {
    expect(termsOf("The retriever's passages aren't relevant")).toEqual(['retriev', 'passag', 'aren', 'relev']);
  });
});

describe('termsInto', () => {
  it('writes the terms termsOf gives into a reused array, from the start, and counts them', () => {
    const out = ['stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale'];
    for (const t of TEXTS) {
      const n = termsInto(t, 1000, out);
      expect(out.slice(0, n)).toEqual(termsOf(t));
    }
    expect(termsInto(TEXTS[0], 3, out)).toBe(termsOf(TEXTS[0], 3).length);
  });
});

describe('lowerCase', () => {
  it('is toLowerCase for upper-case, mixed, non-ASCII and already lower-case text', () => {
    for (const t of [...TEXTS, 'settled', 'PENDING', 'Failed', 'İstanbul', 'ΣΊΣΥΦΟΣ', 'a\u00c0b', 'x']) expect(lowerCase(t)).toBe(t.toLowerCase());
  });
});

describe('termsOf with its cache of recent words', () => {
  // The definition: the words as the regular expression finds them, stop words dropped, stemmed without what follows an apostrophe.
  const termsByRegex = (text: string): string[] =>
    wordsByRegex(text)
      .filter((w) => !STOPWORDS.has(w))
      .map((w) => stemTerm(w.replace(/['’].*$/, '')));

  it('gives the terms of the definition when thousands of different words share the cache’s slots, read once and again', () => {
    // 20,000 distinct words for 4,096 slots: every slot is shared, so a word found by its slot alone would be wrong.
    const syllables = ['ka', 'Lo', 'mi', 'NU', 'pe', 'ro', 'si', 'Ta', 'vu', 'ze'];
    const words: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      let w = '';
      for (let x = i + 1; x > 0; x = Math.floor(x / 10)) w += syllables[x % 10];
      words.push(i % 7 === 0 ? `${w}'s` : i % 11 === 0 ? `${w}${i}` : w);
    }
    const texts: string[] = [];
    for (let i = 0; i < words.length; i += 40) texts.push(`${words.slice(i, i + 40).join(' ')}. The ${words[(i * 7) % words.length]} and ${TEXTS[i % TEXTS.length]}`);
    for (let round = 0; round < 2; round++) for (const t of texts) expect(termsOf(t)).toEqual(termsByRegex(t));
  });
});
