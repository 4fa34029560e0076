/**
 * Verbatim quotes. Every quote the engine shows is a substring of one string
 * leaf (or the JSON text of a number or boolean leaf) of the named field, cut
 * to one line and at most QUOTE_MAX characters, so that a person can find it
 * with a text search in the trace.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { Run, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { leafTexts, stringLeaves } from './json-text';
import { STOPWORDS, stemTerm } from './text-terms';

const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;

export const QUOTE_MAX = 160;

type StepField = 'input' | 'output' | 'error' | 'metadata';

function fieldValue(step: Step, field: StepField): Json | null {
  if (field === 'error') return (step.error as unknown as Json) ?? null;
  if (field === 'metadata') return step.metadata as Json;
  return step[field];
}

/** A window of `text` around [start, end), kept on one line and within `max` characters, cut at word boundaries. */
function windowAround(text: string, start: number, end: number, max = QUOTE_MAX): string {
  end = Math.min(end, start + max);
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let lineEnd = text.indexOf('\n', end);
  if (lineEnd === -1) lineEnd = text.length;
  const room = Math.max(0, max - (end - start));
  let from = Math.max(lineStart, start - Math.floor(room / 2));
  let to = Math.min(lineEnd, end + (room - (start - from)));
  // Do not start or end in the middle of a word (the match itself is never cut).
  if (from > lineStart && isWordChar(text, from - 1)) {
    while (from < start && isWordChar(text, from)) from++;
  }
  if (to < lineEnd && isWordChar(text, to)) {
    while (to > end && isWordChar(text, to - 1)) to--;
  }
  return text.slice(from, to).trim() || text.slice(start, end);
}

function isWordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0;
}

/**
 * Where the sentence (or clause) around position i starts and ends: at . ! ?
 * or ; followed by white space, or at a line break. "$512.40" and
 * "~/.nimbus/logs" do not end a sentence.
 */
function sentenceBounds(text: string, from: number, to: number): [number, number] {
  let a = from;
  while (a > 0) {
    const c = text[a - 1];
    if (c === '\n') break;
    if (a - 2 >= 0 && /[.!?;]/.test(text[a - 2]) && /\s/.test(c)) break;
    a--;
  }
  let b = to;
  while (b < text.length) {
    const c = text[b];
    if (c === '\n') break;
    if (/[.!?;]/.test(c) && (b + 1 === text.length || /\s/.test(text[b + 1]))) {
      b++;
      break;
    }
    b++;
  }
  return [a, b];
}

/** The sentences (or clauses) of a text as [start, end) ranges, by the same boundaries as sentenceBounds. */
function sentenceRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  let a = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      if (i > a) out.push([a, i]);
      a = i + 1;
    } else if ((c === '.' || c === '!' || c === '?' || c === ';') && (i + 1 === text.length || /\s/.test(text[i + 1]))) {
      out.push([a, i + 1]);
      a = i + 1;
    }
  }
  if (a < text.length) out.push([a, text.length]);
  return out;
}

/**
 * The shortest readable span around a match: its sentence (or clause) when
 * that fits in QUOTE_MAX, else a window around the match cut at word
 * boundaries. Always a substring of `text` that contains the match.
 */
function sentenceAround(text: string, start: number, end: number): string {
  const [a, b] = sentenceBounds(text, start, end);
  const sentence = text.slice(a, b).trim();
  if (sentence.length > 0 && sentence.length <= QUOTE_MAX) return sentence;
  return windowAround(text, start, end);
}

// Leaves under these keys name roles, kinds and ids: structure rather than content worth quoting alone.
const STRUCTURAL_KEYS = new Set(['role', 'type', 'id', 'object', 'model', 'index', 'finish_reason', 'stop_reason', 'tool_call_id', 'name']);

function keyOf(path: string): string {
  const m = /([A-Za-z_][\w-]*)(?:\[\d+\])*$/.exec(path);
  return m ? m[1] : '';
}

/** A leaf that reads as text: four words or more, not under a structural key. */
function isProse(l: { path: string; text: string }): boolean {
  return !STRUCTURAL_KEYS.has(keyOf(l.path)) && l.text.trim().split(/\s+/).length >= 4;
}

/** The first sentences of a text, up to QUOTE_MAX, cut at a sentence end when one falls inside. */
function opening(text: string): string {
  const start = Math.max(0, text.search(/\S/));
  const lineEnd = text.indexOf('\n', start);
  const limit = Math.min(lineEnd === -1 ? text.length : lineEnd, start + QUOTE_MAX);
  if (limit === text.length || limit === lineEnd) return text.slice(start, limit).trim();
  const chunk = text.slice(start, limit);
  const stop = Math.max(chunk.lastIndexOf('. '), chunk.lastIndexOf('? '), chunk.lastIndexOf('! '));
  if (stop >= 40) return chunk.slice(0, stop + 1);
  return windowAround(text, start, limit);
}

/** Not blank: what `text.trim() !== ''` says (\s and trim() strip the same white space), without making a string. */
const NOT_BLANK = /\S/;

function quoteIn(value: Json | null | undefined, needle?: string): string | null {
  if (needle !== undefined && needle !== '') return needleIn(leafTexts(value ?? null), needle);
  const leaves = stringLeaves(value ?? null).filter((l) => l.text.trim() !== '');
  if (leaves.length === 0) return null;
  // No needle: the first leaf that reads as text, never a role name or an id when there is one.
  const leaf = leaves.find(isProse) ?? leaves.find((l) => !STRUCTURAL_KEYS.has(keyOf(l.path))) ?? leaves[0];
  return opening(leaf.text);
}

/** The sentence around the first match of `needle` in the non-blank texts, exact case first; null when none holds it. */
function needleIn(texts: string[], needle: string): string | null {
  for (let k = 0; k < texts.length; k++) {
    const text = texts[k];
    if (!NOT_BLANK.test(text)) continue;
    const i = text.indexOf(needle);
    if (i >= 0) return sentenceAround(text, i, i + needle.length);
  }
  const lower = needle.toLowerCase();
  for (let k = 0; k < texts.length; k++) {
    const text = texts[k];
    if (!NOT_BLANK.test(text)) continue;
    const i = text.toLowerCase().indexOf(lower);
    // Lower-casing can change lengths outside ASCII; only trust it when it did not.
    if (i >= 0 && text.length === text.toLowerCase().length) return sentenceAround(text, i, i + needle.length);
  }
  return null;
}

/**
 * The sentence of a field that holds the most of `terms` (stemmed content
 * terms, as termSet gives them); ties go to the shorter sentence. Null when
 * no sentence holds any of them.
 */
function bestSentenceIn(value: Json | null | undefined, terms: Set<string>): string | null {
  if (terms.size === 0) return null;
  let best: string | null = null;
  let bestHits = 0;
  for (const l of stringLeaves(value ?? null)) {
    const text = l.text;
    if (STRUCTURAL_KEYS.has(keyOf(l.path)) || text.trim() === '') continue;
    for (const [a, end] of sentenceRanges(text)) {
      const sentence = text.slice(a, end);
      const hit = new Set<string>();
      let first = -1;
      WORD.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = WORD.exec(sentence)) !== null) {
        const w = m[0].toLowerCase();
        if (STOPWORDS.has(w)) continue;
        const t = stemTerm(w.replace(/['’].*$/, ''));
        if (terms.has(t)) {
          hit.add(t);
          if (first < 0) first = m.index;
        }
      }
      if (hit.size > bestHits || (hit.size === bestHits && hit.size > 0 && best !== null && sentence.trim().length < best.length)) {
        bestHits = hit.size;
        best = sentence.trim().length <= QUOTE_MAX ? sentence.trim() : windowAround(text, a + first, a + first + 1);
      }
    }
  }
  return best;
}

/** Evidence from a step field; null when the field holds no text (or not the needle). */
export function quoteStep(step: Step, field: StepField, needle?: string): Evidence | null {
  const q = quoteIn(fieldValue(step, field), needle);
  return q === null ? null : { step_id: step.step_id, field, quote: q };
}

/** Evidence from the sentence of a step field that holds the most of `terms` (stemmed content terms). */
export function quoteStepBest(step: Step, field: StepField, terms: Set<string>): Evidence | null {
  const q = bestSentenceIn(fieldValue(step, field), terms);
  return q === null ? null : { step_id: step.step_id, field, quote: q };
}

/** Evidence from the run itself (input, output, error or verdict); step_id is ''. */
export function quoteRun(run: Run, part: 'input' | 'output' | 'error' | 'verdict', needle?: string): Evidence | null {
  const value: Json | null =
    part === 'error' ? ((run.error as unknown as Json) ?? null) : part === 'verdict' ? ((run.verdict as unknown as Json) ?? null) : run[part];
  const q = quoteIn(value, needle);
  return q === null ? null : { step_id: '', field: 'run', quote: q };
}

/** True when the evidence is verbatim in the trace (used by tests and the benchmark). */
export function isVerbatim(evidence: Evidence, steps: Step[], run: Run): boolean {
  const inLeaves = (v: Json | null | undefined): boolean => stringLeaves(v ?? null).some((l) => l.text.includes(evidence.quote));
  if (evidence.field === 'run') {
    return [run.input, run.output, run.error as unknown as Json, run.verdict as unknown as Json].some(inLeaves);
  }
  const step = steps.find((s) => s.step_id === evidence.step_id);
  return step !== undefined && inLeaves(fieldValue(step, evidence.field));
}

/** A quote cut for a one-sentence reason around `needle` (case-insensitive), with … where it was cut; the start of it when the needle is absent. */
export function excerptAround(quote: string, needle: string, max = 70): string {
  const i = needle ? quote.toLowerCase().indexOf(needle.toLowerCase()) : -1;
  if (quote.length <= max || i < 0 || quote.length !== quote.toLowerCase().length) return shortQuote(quote, max);
  const w = windowAround(quote, i, i + needle.length, max);
  const at = quote.indexOf(w);
  return `${at > 0 ? '…' : ''}${w}${at + w.length < quote.length ? '…' : ''}`;
}

/** A quote shortened for a one-sentence reason (still a verbatim substring). */
export function shortQuote(quote: string, max = 90): string {
  return quote.length <= max ? quote : `${quote.slice(0, max - 1).trimEnd()}…`;
}
