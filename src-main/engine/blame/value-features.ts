/**
 * Values that identify content as it moves between steps: dates, e-mail
 * addresses, URLs, ids (letters mixed with digits), numbers (two or more
 * digits, or with a decimal point), and capitalised names. Each has a kind
 * and a 30-bit hash of its normal form, so "March 5, 2024" and "2024-03-05"
 * are one date and "1,200.50" and "1200.5" one number. Text is also cut
 * into word k-shingles for "this passage reappears there" (Broder 1997),
 * sampled 0 mod 4 on long texts to keep the index small.
 *
 * One pass over the characters does all of it, with no regular expression
 * and no string per word on the hot path. The lineage index runs it in
 * hash-only mode over every field of every step (10,000 steps must take
 * milliseconds); the rules ask for full Value objects (with the text to
 * quote) only for the few steps they inspect. Both modes compute the same
 * hashes. Hashes are 30 bits so they stay small integers in V8; a collision
 * (about 1 in 10^9 per pair) can at worst add a lineage edge.
 */
import type { Json } from '../../../src-shared/trace-format';
import { STOPWORDS } from '../text/text-terms';

type ValueKind = 'date' | 'email' | 'url' | 'id' | 'number' | 'name';

export interface Value {
  kind: ValueKind;
  /** Normal form with its kind, e.g. "date:2024-03-05", "number:1200.5". */
  key: string;
  /** The text as it appears (for quoting). */
  raw: string;
  /** 30-bit hash of the normal form; what the lineage index keys on. */
  h: number;
}

const MASK = 0x3fffffff;
const FNV = 2166136261;
const PRIME = 16777619;

function fnv(s: string): number {
  let h = FNV;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h = Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), PRIME);
  }
  return h;
}

const KIND_CODE: Record<ValueKind, number> = { date: 1, email: 2, url: 3, id: 4, number: 5, name: 6 };
/**
 * How strongly a shared value links two steps in lineage: a date, e-mail, URL or id is specific enough to link
 * alone (weight 2 reaches lineage's LINK_VOTES); a number or a name is common, so it needs a second match.
 */
const KIND_WEIGHT: Record<ValueKind, number> = { date: 2, email: 2, url: 2, id: 2, number: 1, name: 1 };
/** KIND_WEIGHT indexed by kind code (Value codes as scanText emits them), for lineage's hot loop. */
export const KIND_WEIGHT_BY_CODE: readonly number[] = (() => {
  const out = [0];
  for (const [kind, code] of Object.entries(KIND_CODE) as [ValueKind, number][]) out[code] = KIND_WEIGHT[kind];
  return out;
})();

function seal(kind: number, h: number): number {
  return Math.imul(h ^ Math.imul(kind, 0x9e3779b1), PRIME) & MASK;
}

/** Hash of an arbitrary key (e-mails, URLs, tool-call ids). */
export function hashKey(key: string): number {
  return fnv(key) & MASK;
}

const MONTHS: Record<string, string> = {
  jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', sept: '09', oct: '10', nov: '11', dec: '12',
};
// Month words by hash (the scan hashes every word anyway): no string or regular expression per capitalised word.
const MONTH_HASH = new Set(
  'jan january feb february mar march apr april may jun june jul july aug august sep sept september oct october nov november dec december'
    .split(' ')
    .map((w) => fnv(w)),
);
const NAMED_DATE = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/gi;
const DAY_FIRST_DATE = /\b(\d{1,2})\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?,?\s+(\d{4})\b/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const URL_RE = /\bhttps?:\/\/[^\s"'<>)]+/g;

// Capitalised words that start sentences and instructions rather than name things.
const NAME_NOISE_WORDS =
  'find show list compare summarize summarise write get give tell explain describe calculate book check look search create ' +
  'make send hi hello thanks thank sure here yes note step task user assistant system context question answer plan result ' +
  'results query source sources passage document documents error warning okay ok let now first then next finally also ' +
  'according however therefore today tomorrow yesterday total sorry unfortunately based use using call return returns ' +
  'january february march april may june july august september october november december monday tuesday wednesday ' +
  'thursday friday saturday sunday';
const NAME_NOISE = new Set(NAME_NOISE_WORDS.split(' ').map((w) => fnv(w)));
const STOP_HASH = new Set([...STOPWORDS].map((w) => fnv(w)));

export interface Scan {
  /** Full values; empty in hash-only mode. */
  values: Value[];
  /** Hash-only mode: value hashes and kinds, views into shared buffers valid until the next scan. */
  valueHashes: Int32Array;
  valueKinds: Uint8Array;
  /** A view into a buffer shared by all scans: valid until the next scan. */
  shingles: Int32Array;
  /** Hash of the word sequence: equal for texts that differ only in punctuation, spacing or case. */
  contentHash: number;
  words: number;
  /** Hash of the first word (for indexing short phrases). */
  firstWord: number;
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

export interface ScanOptions {
  k?: number;
  maxChars?: number;
  /** Texts of more words than this keep only shingles whose hash is 0 mod 4. */
  sampleAbove?: number;
  /** 'full' (Value objects), 'hash' (hashes and kinds only) or 'none'. */
  values?: 'full' | 'hash' | 'none';
  shingles?: boolean;
  /**
   * First words of short phrases (2 to k-1 words) indexed elsewhere: at each
   * occurrence of one, the windows of 2 to k-1 words starting there are added
   * to the shingles, hashed like a whole short text (contentHash), so that a
   * short output ("service unavailable") is found inside a longer input.
   */
  shortPhraseStarts?: { has(word: number): boolean; size: number };
}

// Buffers reused by every scan, so that scanning 10,000 steps allocates
// almost nothing in hash-only mode.
let WORDS = new Int32Array(1 << 14);
let SHINGLES = new Int32Array(1 << 14);
let VH = new Int32Array(1 << 10);
let VK = new Uint8Array(1 << 10);
const NAME_WORDS = new Int32Array(64);
const NO_VALUES: Value[] = [];

interface ScanState {
  full: Value[] | null;
  wantValues: boolean;
  count: number;
  vcount: number;
  budget: number;
}

function emit(st: ScanState, kind: number, h: number): void {
  if (st.vcount === VH.length) {
    const a = new Int32Array(VH.length * 2);
    a.set(VH);
    VH = a;
    const b = new Uint8Array(VK.length * 2);
    b.set(VK);
    VK = b;
  }
  VH[st.vcount] = h;
  VK[st.vcount++] = kind;
}

function pad2(s: string): string {
  return s.length === 1 ? `0${s}` : s;
}

function emitName(st: ScanState, t: string, start: number, end: number, nWords: number, keptChars: number, kept: number): void {
  if (kept === 0 || keptChars + kept - 1 < 3) return;
  let h = FNV;
  let nKept = 0;
  let lastKept = 0;
  for (let i = 0; i < nWords; i++) {
    const w = NAME_WORDS[i];
    if (w === 0) continue;
    h = Math.imul(h ^ w, PRIME);
    nKept++;
    lastKept = w;
  }
  if (nKept === 1 && NAME_NOISE.has(lastKept)) return;
  const vh = seal(KIND_CODE.name, h);
  emit(st, KIND_CODE.name, vh);
  if (st.full) {
    const raw = t.slice(start, end);
    const parts = raw.split(/[ -]/);
    const words = parts.filter((p) => !STOP_HASH.has(fnv(p)));
    const key = words.join(' ').toLowerCase();
    st.full.push({ kind: 'name', key: `name:${key}`, raw: words.length === parts.length ? raw : words.join(' '), h: vh });
  }
}

function emitRare(st: ScanState, t: string, sawMonth: boolean, sawAt: boolean, sawUrl: boolean): void {
  if (sawMonth) {
    for (const re of [NAMED_DATE, DAY_FIRST_DATE]) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(t)) !== null) {
        const [month, day, year] = re === NAMED_DATE ? [m[1], m[2], m[3]] : [m[2], m[1], m[3]];
        const mm = MONTHS[month.toLowerCase().slice(0, 3)];
        if (!mm) continue;
        const vh = seal(KIND_CODE.date, fnv(`${year}${mm}${pad2(day)}`));
        emit(st, KIND_CODE.date, vh);
        st.full?.push({ kind: 'date', key: `date:${year}-${mm}-${pad2(day)}`, raw: m[0], h: vh });
      }
    }
  }
  if (sawAt) {
    EMAIL.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = EMAIL.exec(t)) !== null) {
      const key = `email:${m[0].toLowerCase()}`;
      const vh = hashKey(key);
      emit(st, KIND_CODE.email, vh);
      st.full?.push({ kind: 'email', key, raw: m[0], h: vh });
    }
  }
  if (sawUrl) {
    URL_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = URL_RE.exec(t)) !== null) {
      const u = m[0].replace(/[.,;]+$/, '');
      const key = `url:${u}`;
      const vh = hashKey(key);
      emit(st, KIND_CODE.url, vh);
      st.full?.push({ kind: 'url', key, raw: u, h: vh });
    }
  }
}

/** "1,200.50" → "1200.5"; "480.00" → "480". */
function normalNumber(raw: string): string {
  let s = raw.replace(/,/g, '');
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

// Hot loop: no closures (captured variables would live on the heap) and no regular expressions.
function scanInto(text: string, st: ScanState): void {
  const t = text.length > st.budget ? text.slice(0, st.budget) : text;
  st.budget -= t.length + 1;
  const wantValues = st.wantValues;
  const n = t.length;
  let i = 0;
  // Pending run of capitalised words (a name).
  let nameStart = -1;
  let nameEnd = -1;
  let nameWords = 0;
  let nameKeptChars = 0;
  let nameKept = 0;
  let sawMonth = false;
  // '@' and '://' are never inside a word, so the skip below sees every one of them.
  let sawAt = false;
  let sawUrl = false;
  while (i < n) {
    let c = t.charCodeAt(i);
    let k0 = cls(c);
    if (k0 === C.Other) {
      if (c === 64) sawAt = true;
      else if (c === 58 && t.charCodeAt(i + 1) === 47 && t.charCodeAt(i + 2) === 47) sawUrl = true;
      i++;
      continue;
    }
    const start = i;
    let h = FNV;
    // Number hash without trailing decimal zeros ("480.00" is "480").
    let hTrim = FNV;
    let sawDot = false;
    let digits = 0;
    let letters = 0;
    let onlyNumberChars = true;
    const firstUpper = k0 === C.Upper;
    const firstDigitZero = c === 48;
    let restLower = true;
    let pos = 0;
    for (;;) {
      if (k0 !== C.Other) {
        h = Math.imul(h ^ (k0 === C.Upper ? c + 32 : c), PRIME);
        if (k0 === C.Digit) {
          digits++;
          if (!sawDot || c !== 48) hTrim = h;
        } else {
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
        } else if (c === 44 && prevDigit && next === C.Digit) {
          i++;
        } else if (c === 46 && prevDigit && next === C.Digit) {
          if (sawDot) onlyNumberChars = false;
          sawDot = true;
          h = Math.imul(h ^ 46, PRIME);
          i++;
        } else if ((c === 39 || c === 0x2019) && !prevDigit && next !== C.Digit) {
          i++;
        } else break;
      }
      if (i >= n) break;
      c = t.charCodeAt(i);
      k0 = cls(c);
    }
    if (st.count === WORDS.length) {
      const grown = new Int32Array(WORDS.length * 2);
      grown.set(WORDS);
      WORDS = grown;
    }
    WORDS[st.count++] = h & MASK;
    if (!wantValues) continue;
    const len = i - start;
    if (digits > 0) {
      if (nameStart >= 0) {
        emitName(st, t, nameStart, nameEnd, nameWords, nameKeptChars, nameKept);
        nameStart = -1;
      }
      if (len === 10 && digits === 8 && t.charCodeAt(start + 4) === 45 && t.charCodeAt(start + 7) === 45) {
        const vh = seal(KIND_CODE.date, h);
        emit(st, KIND_CODE.date, vh);
        if (st.full) {
          const raw = t.slice(start, i);
          st.full.push({ kind: 'date', key: `date:${raw}`, raw, h: vh });
        }
      } else if (onlyNumberChars) {
        // Single digits ("top 3", list markers) are too common to identify anything.
        if (!sawDot && (digits < 2 || firstDigitZero)) continue;
        const vh = seal(KIND_CODE.number, sawDot ? hTrim : h);
        emit(st, KIND_CODE.number, vh);
        if (st.full) {
          const raw = t.slice(start, i);
          st.full.push({ kind: 'number', key: `number:${normalNumber(raw)}`, raw, h: vh });
        }
      } else if (len >= 4) {
        const vh = seal(KIND_CODE.id, h);
        emit(st, KIND_CODE.id, vh);
        if (st.full) {
          const raw = t.slice(start, i);
          st.full.push({ kind: 'id', key: `id:${raw.toLowerCase()}`, raw, h: vh });
        }
      }
      continue;
    }
    if (firstUpper && restLower && letters >= 3 && letters === len) {
      const wh = h | 0;
      if (!sawMonth && len <= 9 && MONTH_HASH.has(wh)) sawMonth = true;
      const stop = STOP_HASH.has(wh);
      // Extend a run of capitalised words separated by one space or hyphen.
      const extend = nameStart >= 0 && start - nameEnd === 1 && (t.charCodeAt(nameEnd) === 32 || t.charCodeAt(nameEnd) === 45) && nameWords < NAME_WORDS.length;
      if (!extend) {
        if (nameStart >= 0) emitName(st, t, nameStart, nameEnd, nameWords, nameKeptChars, nameKept);
        nameStart = start;
        nameWords = 0;
        nameKeptChars = 0;
        nameKept = 0;
      }
      nameEnd = i;
      NAME_WORDS[nameWords++] = stop ? 0 : wh;
      if (!stop) {
        nameKept++;
        nameKeptChars += len;
      }
    } else if (nameStart >= 0) {
      emitName(st, t, nameStart, nameEnd, nameWords, nameKeptChars, nameKept);
      nameStart = -1;
    }
  }
  if (nameStart >= 0) emitName(st, t, nameStart, nameEnd, nameWords, nameKeptChars, nameKept);
  if (wantValues && (sawMonth || sawAt || sawUrl)) emitRare(st, t, sawMonth, sawAt, sawUrl);
}

let lastContentHash = 0;

/** Computes the content hash and the shingles into SHINGLES; returns the shingle count. */
function finishCounts(st: ScanState, opts: ScanOptions): number {
  const k = opts.k ?? 5;
  const words = st.count;
  let contentHash = 7;
  for (let j = 0; j < words; j++) contentHash = (Math.imul(contentHash, 31) + WORDS[j]) & MASK;
  let count = 0;
  if (opts.shingles !== false && words >= 2) {
    if (SHINGLES.length < words * 4) SHINGLES = new Int32Array(words * 4);
    if (words < k) SHINGLES[count++] = contentHash;
    else {
      // Rolling polynomial hash of k consecutive word hashes (mod 2^30): three operations per word.
      const sample = words > (opts.sampleAbove ?? 24);
      let top = 1;
      for (let j = 1; j < k; j++) top = Math.imul(top, 31);
      let x = 0;
      for (let j = 0; j < k; j++) x = (Math.imul(x, 31) + WORDS[j]) & MASK;
      if (!sample || (x & 3) === 0) SHINGLES[count++] = x;
      for (let s = 1; s + k <= words; s++) {
        x = (Math.imul(x - Math.imul(WORDS[s - 1], top), 31) + WORDS[s + k - 1]) & MASK;
        if (!sample || (x & 3) === 0) SHINGLES[count++] = x;
      }
    }
    const starts = opts.shortPhraseStarts;
    if (starts && starts.size > 0) {
      for (let s = 0; s + 1 < words; s++) {
        if (!starts.has(WORDS[s])) continue;
        let x = 7;
        for (let len = 1; len < k && s + len <= words; len++) {
          x = (Math.imul(x, 31) + WORDS[s + len - 1]) & MASK;
          if (len < 2) continue;
          if (count + 1 >= SHINGLES.length) {
            const grown = new Int32Array(SHINGLES.length * 2);
            grown.set(SHINGLES);
            SHINGLES = grown;
          }
          SHINGLES[count++] = x;
        }
      }
    }
  }
  lastContentHash = contentHash;
  return count;
}

function finish(st: ScanState, opts: ScanOptions): Scan {
  const count = finishCounts(st, opts);
  const words = st.count;
  return {
    values: st.full && st.full.length > 0 ? st.full : NO_VALUES,
    valueHashes: VH.subarray(0, st.vcount),
    valueKinds: VK.subarray(0, st.vcount),
    shingles: SHINGLES.subarray(0, count),
    contentHash: lastContentHash,
    words,
    firstWord: words > 0 ? WORDS[0] : 0,
  };
}

function stateFor(opts: ScanOptions): ScanState {
  const mode = opts.values ?? 'full';
  return { full: mode === 'full' ? [] : null, wantValues: mode !== 'none', count: 0, vcount: 0, budget: opts.maxChars ?? Number.POSITIVE_INFINITY };
}

/** Values and word-shingle hashes of `text` in one pass. */
export function scanText(text: string, opts: ScanOptions = {}): Scan {
  const st = stateFor(opts);
  scanInto(text, st);
  return finish(st, opts);
}

/** The same over every string and number leaf of a JSON value (keys are structure, not content). */
export function scanJson(v: Json | null | undefined, opts: ScanOptions = {}): Scan {
  const st = stateFor(opts);
  walkLeaves(v, st);
  return finish(st, opts);
}

function walkLeaves(x: Json | null | undefined, st: ScanState): void {
  if (st.budget <= 0 || x === null || x === undefined) return;
  if (typeof x === 'string') scanInto(x, st);
  else if (typeof x === 'number') scanNumber(x, st);
  else if (Array.isArray(x)) for (let i = 0; i < x.length; i++) walkLeaves(x[i], st);
  else if (typeof x === 'object') for (const key in x) walkLeaves(x[key], st);
}

const DIGITS = new Uint8Array(20);

/**
 * A number leaf: what scanInto(String(x)) gives, without making the string
 * for the common case of a non-negative integer in hash-only mode (a large
 * run holds tens of thousands of numeric fields).
 */
function scanNumber(x: number, st: ScanState): void {
  if (st.full !== null || !Number.isInteger(x) || x < 0 || x > Number.MAX_SAFE_INTEGER) {
    scanInto(String(x), st);
    return;
  }
  let digits = 0;
  let v = x;
  do {
    DIGITS[digits++] = v % 10;
    v = Math.floor(v / 10);
  } while (v > 0);
  if (digits > st.budget) {
    scanInto(String(x), st);
    return;
  }
  st.budget -= digits + 1;
  let h = FNV;
  for (let i = digits - 1; i >= 0; i--) h = Math.imul(h ^ (48 + DIGITS[i]), PRIME);
  if (st.count === WORDS.length) {
    const grown = new Int32Array(WORDS.length * 2);
    grown.set(WORDS);
    WORDS = grown;
  }
  WORDS[st.count++] = h & MASK;
  // As in scanInto: single digits identify nothing.
  if (st.wantValues && digits >= 2) emit(st, KIND_CODE.number, seal(KIND_CODE.number, h));
}

/** Where scanHashes leaves its results; the arrays are shared buffers, valid until the next scan. */
export interface HashScan {
  valueHashes: Int32Array;
  valueKinds: Uint8Array;
  valueCount: number;
  shingles: Int32Array;
  shingleCount: number;
  contentHash: number;
  words: number;
  firstWord: number;
}

export function newHashScan(): HashScan {
  return { valueHashes: VH, valueKinds: VK, valueCount: 0, shingles: SHINGLES, shingleCount: 0, contentHash: 0, words: 0, firstWord: 0 };
}

const HASH_STATE: ScanState = { full: null, wantValues: true, count: 0, vcount: 0, budget: 0 };

/**
 * scanJson in hash-only mode without allocating: results go into `out`
 * (the lineage pass calls this for every field of every step).
 */
export function scanHashes(v: Json | null | undefined, opts: ScanOptions, out: HashScan): void {
  const st = HASH_STATE;
  st.count = 0;
  st.vcount = 0;
  st.budget = opts.maxChars ?? Number.POSITIVE_INFINITY;
  walkLeaves(v, st);
  const r = finishCounts(st, opts);
  out.valueHashes = VH;
  out.valueKinds = VK;
  out.valueCount = st.vcount;
  out.shingles = SHINGLES;
  out.shingleCount = r;
  out.contentHash = lastContentHash;
  out.words = st.count;
  out.firstWord = st.count > 0 ? WORDS[0] : 0;
}

/** All values in `text`; `limit` caps the text scanned. */
export function valuesOf(text: string, limit = 20_000): Value[] {
  return scanText(text, { maxChars: limit, shingles: false }).values;
}

/** Hashes of word k-shingles (sampled 0 mod 4 above `sampleAbove` words). */
export function shinglesOf(text: string, k: number, maxWords: number, sampleAbove = 24): number[] {
  return Array.from(scanText(text, { k, maxChars: maxWords * 12, values: 'none', sampleAbove }).shingles);
}
