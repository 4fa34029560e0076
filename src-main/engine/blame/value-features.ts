/**
 * Values that identify content as it moves between steps: dates, e-mail
 * addresses, URLs, ids (letters mixed with digits), numbers of two or more
 * digits, and capitalised names. Each comes out as "kind:normal form", so
 * "March 5, 2024" and "2024-03-05" are one date and "1,200" and "1200" one
 * number. Text is also cut into word k-shingles for "this passage reappears
 * there" (Broder 1997), sampled 0 mod 4 on long texts to keep the index small.
 *
 * One pass over the characters does both (no regular expression on the hot
 * path, no string per word): lineage runs this on every field of every step,
 * and 10,000 steps must take milliseconds.
 */
import type { Json } from '../../../src-shared/trace-format';
import { STOPWORDS } from '../scoring/text-terms';

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
const MONTH_WORD = /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)$/;
const NAMED_DATE = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/gi;
const DAY_FIRST_DATE = /\b(\d{1,2})\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?,?\s+(\d{4})\b/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const URL_RE = /\bhttps?:\/\/[^\s"'<>)]+/g;

// Capitalised words that start sentences and instructions rather than name things.
const NAME_NOISE = new Set(
  ('find show list compare summarize summarise write get give tell explain describe calculate book check look search create ' +
    'make send hi hello thanks thank sure here yes note step task user assistant system context question answer plan result ' +
    'results query source sources passage document documents error warning okay ok let now first then next finally also ' +
    'according however therefore today tomorrow yesterday total sorry unfortunately based use using call return returns ' +
    'january february march april may june july august september october november december monday tuesday wednesday ' +
    'thursday friday saturday sunday').split(' '),
);

export interface Scan {
  values: Value[];
  shingles: number[];
  /** Hash of the word sequence: equal for texts that differ only in punctuation, spacing or case. */
  contentHash: number;
  words: number;
}

const enum C {
  Other = 0,
  Digit = 1,
  Upper = 2,
  Lower = 3,
  Letter = 4,
}

function cls(c: number): C {
  if (c >= 97 && c <= 122) return C.Lower;
  if (c >= 48 && c <= 57) return C.Digit;
  if (c >= 65 && c <= 90) return C.Upper;
  if (c < 0xc0) return C.Other;
  // Letters of other scripts (a few symbols slip in; harmless for matching).
  if (c === 0xd7 || c === 0xf7 || (c >= 0x2000 && c <= 0x2bff) || (c >= 0x3000 && c <= 0x303f)) return C.Other;
  return C.Letter;
}

function pad2(s: string): string {
  return s.length === 1 ? `0${s}` : s;
}

export interface ScanOptions {
  k?: number;
  maxChars?: number;
  /** Texts of more words than this keep only shingles whose hash is 0 mod 4. */
  sampleAbove?: number;
  values?: boolean;
  shingles?: boolean;
}

interface ScanState {
  values: Value[];
  hashes: number[];
  wantValues: boolean;
  budget: number;
}

function pushName(t: string, start: number, end: number, values: Value[]): void {
  const raw = t.slice(start, end);
  const parts = raw.split(/[ -]/);
  const words = parts.filter((w) => !STOPWORDS.has(w.toLowerCase()));
  const key = words.join(' ').toLowerCase();
  if (key.length < 3 || (words.length === 1 && NAME_NOISE.has(key))) return;
  values.push({ kind: 'name', key: `name:${key}`, raw: words.length === parts.length ? raw : words.join(' ') });
}

function pushDigitToken(t: string, start: number, end: number, digits: number, onlyNumberChars: boolean, values: Value[]): void {
  const len = end - start;
  if (len === 10 && digits === 8 && t.charCodeAt(start + 4) === 45 && t.charCodeAt(start + 7) === 45) {
    const raw = t.slice(start, end);
    values.push({ kind: 'date', key: `date:${raw}`, raw });
  } else if (onlyNumberChars) {
    // Single digits ("top 3", list markers) are too common to identify anything.
    if (len === 1) return;
    const raw = t.slice(start, end);
    const v = Number(raw.includes(',') ? raw.replace(/,/g, '') : raw);
    if (Number.isFinite(v) && !(Math.abs(v) < 10 && Number.isInteger(v))) values.push({ kind: 'number', key: `number:${v}`, raw });
  } else if (len >= 4) {
    const raw = t.slice(start, end);
    values.push({ kind: 'id', key: `id:${raw.toLowerCase()}`, raw });
  }
}

function pushRareValues(t: string, sawMonth: boolean, values: Value[]): void {
  if (sawMonth) {
    for (const re of [NAMED_DATE, DAY_FIRST_DATE]) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(t)) !== null) {
        const [month, day, year] = re === NAMED_DATE ? [m[1], m[2], m[3]] : [m[2], m[1], m[3]];
        values.push({ kind: 'date', key: `date:${year}-${MONTHS[month.toLowerCase().slice(0, 3)]}-${pad2(day)}`, raw: m[0] });
      }
    }
  }
  if (t.includes('@')) {
    EMAIL.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = EMAIL.exec(t)) !== null) values.push({ kind: 'email', key: `email:${m[0].toLowerCase()}`, raw: m[0] });
  }
  if (t.includes('://')) {
    URL_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = URL_RE.exec(t)) !== null) {
      const u = m[0].replace(/[.,;]+$/, '');
      values.push({ kind: 'url', key: `url:${u}`, raw: u });
    }
  }
}

// Hot loop: no closures (captured variables would live on the heap) and no regular expressions.
function scanInto(text: string, st: ScanState): void {
  const t = text.length > st.budget ? text.slice(0, st.budget) : text;
  st.budget -= t.length + 1;
  const values = st.values;
  const hashes = st.hashes;
  const wantValues = st.wantValues;
  const n = t.length;
  let i = 0;
  // Pending run of capitalised words (a name).
  let nameStart = -1;
  let nameEnd = -1;
  let sawMonth = false;
  while (i < n) {
    let c = t.charCodeAt(i);
    let k0 = cls(c);
    if (k0 === C.Other) {
      i++;
      continue;
    }
    const start = i;
    let h = 2166136261;
    let digits = 0;
    let letters = 0;
    let onlyNumberChars = true;
    const firstUpper = k0 === C.Upper;
    let restLower = true;
    let pos = 0;
    for (;;) {
      if (k0 !== C.Other) {
        h = Math.imul(h ^ (k0 === C.Upper ? c + 32 : c), 16777619);
        if (k0 === C.Digit) digits++;
        else {
          letters++;
          onlyNumberChars = false;
          if (pos > 0 && k0 !== C.Lower) restLower = false;
        }
        pos++;
        i++;
      } else {
        // A joiner continues the token only between two word characters: "ORD-99", "1,200.50", "don't".
        if (i + 1 >= n) break;
        const next = cls(t.charCodeAt(i + 1));
        if (next === C.Other) break;
        const prevDigit = cls(t.charCodeAt(i - 1)) === C.Digit;
        if (c === 45 || c === 95) {
          onlyNumberChars = false;
          restLower = false;
          i++;
        } else if ((c === 44 || c === 46) && prevDigit && next === C.Digit) {
          i++;
        } else if ((c === 39 || c === 0x2019) && !prevDigit && next !== C.Digit) {
          i++;
        } else break;
      }
      if (i >= n) break;
      c = t.charCodeAt(i);
      k0 = cls(c);
    }
    hashes.push(h >>> 0);
    if (!wantValues) continue;
    if (digits > 0) {
      if (nameStart >= 0) {
        pushName(t, nameStart, nameEnd, values);
        nameStart = -1;
      }
      pushDigitToken(t, start, i, digits, onlyNumberChars, values);
      continue;
    }
    const len = i - start;
    if (firstUpper && restLower && letters >= 3 && letters === len) {
      if (!sawMonth && len <= 9 && MONTH_WORD.test(t.slice(start, i).toLowerCase())) sawMonth = true;
      // Extend a run of capitalised words separated by one space or hyphen.
      if (nameStart >= 0 && start - nameEnd === 1 && (t.charCodeAt(nameEnd) === 32 || t.charCodeAt(nameEnd) === 45)) nameEnd = i;
      else {
        if (nameStart >= 0) pushName(t, nameStart, nameEnd, values);
        nameStart = start;
        nameEnd = i;
      }
    } else if (nameStart >= 0) {
      pushName(t, nameStart, nameEnd, values);
      nameStart = -1;
    }
  }
  if (nameStart >= 0) pushName(t, nameStart, nameEnd, values);
  if (wantValues && (sawMonth || t.includes('@') || t.includes('://'))) pushRareValues(t, sawMonth, values);
}

function finish(st: ScanState, opts: ScanOptions): Scan {
  const k = opts.k ?? 5;
  const hashes = st.hashes;
  const words = hashes.length;
  let contentHash = 7;
  for (let j = 0; j < words; j++) contentHash = (Math.imul(contentHash, 31) + hashes[j]) >>> 0;
  let shingles: number[] = [];
  if (opts.shingles !== false) {
    if (words < k) shingles = words >= 2 ? [contentHash] : [];
    else {
      const sample = words > (opts.sampleAbove ?? 24);
      for (let s = 0; s + k <= words; s++) {
        let x = 0;
        for (let j = 0; j < k; j++) x = (Math.imul(x, 31) + hashes[s + j]) >>> 0;
        if (!sample || (x & 3) === 0) shingles.push(x);
      }
    }
  }
  return { values: st.values, shingles, contentHash, words };
}

/** Values and word-shingle hashes of `text` in one pass. */
export function scanText(text: string, opts: ScanOptions = {}): Scan {
  const st: ScanState = { values: [], hashes: [], wantValues: opts.values !== false, budget: opts.maxChars ?? Number.POSITIVE_INFINITY };
  scanInto(text, st);
  return finish(st, opts);
}

/** The same over every string and number leaf of a JSON value (keys are structure, not content). */
export function scanJson(v: Json | null | undefined, opts: ScanOptions = {}): Scan {
  const st: ScanState = { values: [], hashes: [], wantValues: opts.values !== false, budget: opts.maxChars ?? Number.POSITIVE_INFINITY };
  walkLeaves(v, st);
  return finish(st, opts);
}

function walkLeaves(x: Json | null | undefined, st: ScanState): void {
  if (st.budget <= 0 || x === null || x === undefined) return;
  if (typeof x === 'string') scanInto(x, st);
  else if (typeof x === 'number') scanInto(String(x), st);
  else if (Array.isArray(x)) for (let i = 0; i < x.length; i++) walkLeaves(x[i], st);
  else if (typeof x === 'object') for (const key in x) walkLeaves(x[key], st);
}

/** All values in `text`; `limit` caps the text scanned. */
export function valuesOf(text: string, limit = 20_000): Value[] {
  return scanText(text, { maxChars: limit, shingles: false }).values;
}

export function valueKeySet(text: string, limit?: number): Set<string> {
  const s = new Set<string>();
  for (const v of valuesOf(text, limit)) s.add(v.key);
  return s;
}

/** Hashes of word k-shingles (sampled 0 mod 4 above `sampleAbove` words). */
export function shinglesOf(text: string, k: number, maxWords: number, sampleAbove = 24): number[] {
  return scanText(text, { k, maxChars: maxWords * 12, values: false, sampleAbove }).shingles;
}
