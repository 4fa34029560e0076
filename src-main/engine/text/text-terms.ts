/**
 * Words and content terms of free text. Terms are lower-cased, stop words
 * dropped and Porter-stemmed; they feed relevance, overlap and ROUGE-L.
 */
import { porterStem } from './porter-stem';

// A short English list (the SMART and NLTK lists share these); domain words
// such as "error" or "price" are deliberately not in it.
export const STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her hers him his ' +
    'how i if in into is it its itself just me my no nor not of off on once only or other our ours out over own same she ' +
    'should so some such than that the their theirs them then there these they this those through to too under until up ' +
    'very was we were what when where which while who whom why will with would you your yours about above after again ' +
    'against all am any because before below between both down during each few further here more most s t don doesn ' +
    'didn isn wasn weren won wouldn shouldn couldn hasn haven hadn aren also please tell give get me let us use using ' +
    "based following answer question context i'm it's don't can't"
  ).split(' '),
);

/**
 * `s.toLowerCase()`, but `s` itself when it has no upper-case ASCII letter and no non-ASCII character: V8's
 * toLowerCase copies the string even when nothing changes (28 bytes for a 7-letter word, measured on Node 20), and
 * the scorers lower-case a field of every step of a run.
 */
export function lowerCase(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || (c >= 65 && c <= 90)) return s.toLowerCase();
  }
  return s;
}

/**
 * The same characters in a string of their own. V8 makes a slice of 13 or more characters point into the
 * string it was cut from (toLowerCase of a word already lower-case returns it as it is), so one word kept in a
 * cache or a result would keep a whole multi-MB tool output alive; measured: five 20 MB texts held 103 MB after
 * a full collection, 23 MB with this. A concatenation flattened by the slice is a fresh string.
 */
function detached(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

const stemCache = new Map<string, string>();

export function stemTerm(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

const OTHER = 0;
const NUMBER = 1;
const LETTER = 2;
const IS_LETTER = /\p{L}/u;
const IS_NUMBER = /\p{N}/u;
// Classes of the non-ASCII code points met so far (few distinct ones in practice; cleared if it ever grows large).
const wideClass = new Map<number, number>();

/** OTHER, NUMBER (\p{N}) or LETTER (\p{L}) for a code point; a lone surrogate is OTHER. */
function classOf(cp: number): number {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) ? LETTER : cp >= 48 && cp <= 57 ? NUMBER : OTHER;
  let k = wideClass.get(cp);
  if (k === undefined) {
    const ch = String.fromCodePoint(cp);
    k = IS_LETTER.test(ch) ? LETTER : IS_NUMBER.test(ch) ? NUMBER : OTHER;
    if (wideClass.size > 20_000) wideClass.clear();
    wideClass.set(cp, k);
  }
  return k;
}

/**
 * Lower-cased words in order, at most `max` of them. A word is what
 * /[\p{L}\p{N}]+(?:['’]\p{L}+)?/u matches ("don't", "ORD-99" is two words),
 * found by a scan over code points instead: the regular expression allocated
 * a match array per word, a large share of blame's garbage on big runs (measured).
 */
export function wordsOf(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  scanWords(text, max, out, false);
  return out;
}

/** Stemmed content terms in order (stop words removed), from the first `max` words. */
export function termsOf(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  scanWords(text, max, out, true);
  return out;
}

/**
 * termsOf written into `out` from index 0 (entries past the count are stale); returns the count. For a caller
 * that keeps one array for all the texts it reads (relevance scores every passage of every retrieval).
 */
export function termsInto(text: string, max: number, out: string[]): number {
  return scanWords(text, max, out, true);
}

/**
 * The scan behind wordsOf and termsOf: writes each of the first `max` words of `text` into `out` from index 0,
 * lower-cased, or (`terms`) its stem unless it is a stop word; returns how many it wrote. One pass and no list
 * of words in between: termsOf made the list of words and then the list of terms, and scoring the retrievals of
 * a 100,000-step run made ~7 MB of such lists and words per blame (allocation profile of the synthetic run).
 */
function scanWords(text: string, max: number, out: string[], terms: boolean): number {
  const n = text.length;
  let count = 0;
  let words = 0;
  let i = 0;
  while (i < n && words < max) {
    let cp = text.codePointAt(i)!;
    if (classOf(cp) === OTHER) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const start = i;
    do {
      i += cp > 0xffff ? 2 : 1;
      if (i >= n) break;
      cp = text.codePointAt(i)!;
    } while (classOf(cp) !== OTHER);
    // An apostrophe followed by letters continues the word ("don't"); digits after it do not.
    const c = i + 1 < n ? text.charCodeAt(i) : 0;
    if (c === 39 || c === 0x2019) {
      let j = i + 1;
      cp = text.codePointAt(j)!;
      while (classOf(cp) === LETTER) {
        j += cp > 0xffff ? 2 : 1;
        if (j >= n) break;
        cp = text.codePointAt(j)!;
      }
      if (j > i + 1) i = j;
    }
    words++;
    if (!terms) {
      out[count++] = detached(lowerCase(text.slice(start, i)));
      continue;
    }
    // A word met lately is looked up by its letters in the text, without making its string.
    const slot = recentSlot(text, start, i);
    if (slot >= 0) {
      const term = recentTerm[slot];
      if (term !== null) out[count++] = term;
      continue;
    }
    // The word goes into the recent-word slots and the stem cache, which outlive this text.
    const w = detached(lowerCase(text.slice(start, i)));
    const term = termOfWord(w);
    if (term !== null) out[count++] = term;
    remember(text, start, i, w, term);
  }
  return count;
}

/** The term of a lower-cased word: its stem, or null for a stop word. */
function termOfWord(w: string): string | null {
  if (STOPWORDS.has(w)) return null;
  // The stem of "don't" is the stem of "don" (what /['’].*$/ removed, without a regular expression per word).
  const cut = apostropheAt(w);
  return stemTerm(cut === -1 ? w : w.slice(0, cut));
}

/**
 * The terms of recently met ASCII words, by a hash of their lower-cased letters (one entry per slot, the latest
 * word wins): termsOf copied every word out of the text to look its stem up, ~0.8 kB per retrieval scored and
 * 3.5 MB of garbage per 100,000-step blame; a word found here is matched letter by letter and makes nothing.
 */
const RECENT_SLOTS = 4096;
const recentWord: (string | undefined)[] = new Array<string | undefined>(RECENT_SLOTS).fill(undefined);
const recentTerm: (string | null)[] = new Array<string | null>(RECENT_SLOTS).fill(null);

/** Slot of text[start, end) lower-cased, when it is ASCII; -1 otherwise. */
function slotOf(text: string, start: number, end: number): number {
  let h = 2166136261;
  for (let k = start; k < end; k++) {
    let c = text.charCodeAt(k);
    if (c >= 128) return -1;
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 16777619);
  }
  return (h >>> 0) & (RECENT_SLOTS - 1);
}

/** The slot holding text[start, end) lower-cased, or -1 when no slot does. */
function recentSlot(text: string, start: number, end: number): number {
  const slot = slotOf(text, start, end);
  if (slot < 0) return -1;
  const w = recentWord[slot];
  if (w === undefined || w.length !== end - start) return -1;
  for (let k = 0; k < w.length; k++) {
    let c = text.charCodeAt(start + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== w.charCodeAt(k)) return -1;
  }
  return slot;
}

function remember(text: string, start: number, end: number, w: string, term: string | null): void {
  const slot = slotOf(text, start, end);
  if (slot < 0) return;
  recentWord[slot] = w;
  recentTerm[slot] = term;
}

function apostropheAt(w: string): number {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c === 39 || c === 0x2019) return i;
  }
  return -1;
}

export function termSet(text: string, max?: number): Set<string> {
  return new Set(termsOf(text, max));
}

/** Share of `a`'s terms that also occur in `b` (0 when `a` is empty). */
export function coverage(a: Set<string>, b: Set<string>): number {
  if (a.size === 0) return 0;
  let hit = 0;
  for (const t of a) if (b.has(t)) hit++;
  return hit / a.size;
}
