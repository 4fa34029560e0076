/**
 * Values that identify content as it moves between steps: dates, e-mail
 * addresses, URLs, ids (letters mixed with digits), numbers of two or more
 * digits, and capitalised names. Each comes out as "kind:normal form", so
 * "March 5, 2024" and "2024-03-05" are one date and "1,200" and "1200" one
 * number. Text is also cut into word 5-shingles for "this passage reappears
 * there" (Broder 1997), sampled 0 mod 4 on long texts to keep the index small.
 */
import { STOPWORDS, wordsOf } from '../scoring/text-terms';

export type ValueKind = 'date' | 'email' | 'url' | 'id' | 'number' | 'name';

export interface Value {
  kind: ValueKind;
  key: string;
  /** The text as it appears (for quoting). */
  raw: string;
}

const MONTHS: Record<string, string> = {
  jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', sept: '09', oct: '10', nov: '11', dec: '12',
};
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const NAMED_DATE = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/gi;
const DAY_FIRST_DATE = /\b(\d{1,2})\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?,?\s+(\d{4})\b/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const URL = /\bhttps?:\/\/[^\s"'<>)]+/g;
const ID = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{3,}\b/g;
const NUMBER = /(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])/g;
const NAME = /\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b/g;

function pad2(s: string): string {
  return s.length === 1 ? `0${s}` : s;
}

// Capitalised words that start sentences and instructions rather than name things.
const NAME_NOISE = new Set(
  ('find show list compare summarize summarise write get give tell explain describe calculate book check look search create ' +
    'make send hi hello thanks thank sure here yes note step task user assistant system context question answer plan result ' +
    'results query source sources passage document documents error warning okay ok let now first then next finally also ' +
    'according however therefore today tomorrow yesterday total sorry unfortunately based use using call return returns').split(' '),
);

/** All values in `text` (earlier kinds win where matches overlap); `limit` caps the text scanned. */
export function valuesOf(text: string, limit = 20_000): Value[] {
  const t = text.length > limit ? text.slice(0, limit) : text;
  const out: Value[] = [];
  let covered: Uint8Array | null = null;
  const free = (start: number, len: number): boolean => {
    if (covered === null) return true;
    for (let i = start; i < start + len; i++) if (covered[i] === 1) return false;
    return true;
  };
  const cover = (start: number, len: number): void => {
    if (covered === null) covered = new Uint8Array(t.length);
    covered.fill(1, start, start + len);
  };
  const take = (re: RegExp, kind: ValueKind, norm: (m: RegExpExecArray) => string | null): void => {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(t)) !== null) {
      if (!free(m.index, m[0].length)) continue;
      cover(m.index, m[0].length);
      const n = norm(m);
      if (n !== null) out.push({ kind, key: `${kind}:${n}`, raw: m[0] });
    }
  };
  const digits = /\d/.test(t);
  if (digits) {
    take(ISO_DATE, 'date', (m) => `${m[1]}-${m[2]}-${m[3]}`);
    take(NAMED_DATE, 'date', (m) => `${m[3]}-${MONTHS[m[1].toLowerCase().slice(0, 3)]}-${pad2(m[2])}`);
    take(DAY_FIRST_DATE, 'date', (m) => `${m[3]}-${MONTHS[m[2].toLowerCase().slice(0, 3)]}-${pad2(m[1])}`);
  }
  if (t.includes('@')) take(EMAIL, 'email', (m) => m[0].toLowerCase());
  if (t.includes('://')) take(URL, 'url', (m) => m[0].replace(/[.,;]+$/, ''));
  if (digits) {
    take(ID, 'id', (m) => m[0].toLowerCase());
    take(NUMBER, 'number', (m) => {
      const s = m[0].replace(/,/g, '').replace(/^\+/, '');
      const v = Number(s);
      if (!Number.isFinite(v)) return null;
      // Single digits ("top 3", list markers) are too common to identify anything.
      if (Math.abs(v) < 10 && Number.isInteger(v)) return null;
      return String(v);
    });
  }
  take(NAME, 'name', (m) => {
    const words = m[0].split(/[ -]/).filter((w) => !STOPWORDS.has(w.toLowerCase()));
    const key = words.join(' ').toLowerCase();
    if (key.length < 3 || (words.length === 1 && NAME_NOISE.has(key))) return null;
    return key;
  });
  return out;
}

export function valueKeySet(text: string, limit?: number): Set<string> {
  const s = new Set<string>();
  for (const v of valuesOf(text, limit)) s.add(v.key);
  return s;
}

function hashWord(w: string): number {
  let h = 2166136261;
  for (let i = 0; i < w.length; i++) {
    h ^= w.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/**
 * Hashes of word k-shingles. Texts of more than `sampleAbove` words keep only
 * the shingles whose hash is 0 mod 4; two texts sharing a long passage still
 * share about a quarter of its shingles.
 */
export function shinglesOf(text: string, k: number, maxWords: number, sampleAbove = 24): number[] {
  const words = wordsOf(text, maxWords);
  if (words.length < k) return words.length >= 2 ? [combine(words.map(hashWord))] : [];
  const hashes = words.map(hashWord);
  const sample = words.length > sampleAbove;
  const out: number[] = [];
  for (let i = 0; i + k <= hashes.length; i++) {
    let h = 0;
    for (let j = 0; j < k; j++) h = (Math.imul(h, 31) + hashes[i + j]) >>> 0;
    if (!sample || (h & 3) === 0) out.push(h);
  }
  return out;
}

function combine(hs: number[]): number {
  let h = 7;
  for (const x of hs) h = (Math.imul(h, 31) + x) >>> 0;
  return h;
}
