/**
 * Words and content terms of free text. Terms are lower-cased, stop words
 * dropped and Porter-stemmed; they feed relevance, overlap and ROUGE-L.
 */
import { porterStem } from './porter-stem';

const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;

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

/** Lower-cased words in order, at most `max` of them. */
export function wordsOf(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(text)) !== null && out.length < max) out.push(m[0].toLowerCase());
  return out;
}

/** Stemmed content terms in order (stop words removed). */
export function termsOf(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const w of wordsOf(text, max)) {
    if (STOPWORDS.has(w)) continue;
    out.push(stemTerm(w.replace(/['’].*$/, '')));
  }
  return out;
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
