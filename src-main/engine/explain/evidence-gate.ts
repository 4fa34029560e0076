/**
 * The evidence gate (docs/explain.md §3): a model's root-cause candidate
 * counts only if it quotes the trace. Deterministic, so the same answer is
 * always judged the same way, and every rejection says why.
 *
 * A quote is grounded when, after collapsing white space, it is a verbatim
 * substring of the named step's field, or, as the only tolerance, when at
 * least `min_quote_overlap` of its words occur in the quote's order in one
 * window of the field as long as the quote (models re-type JSON with other
 * spacing or quotes, and drop an article). A quote that hedges ("likely",
 * "the task implies") is never evidence, whatever it matches; nor is a quote
 * under `min_quote_words` words or `min_quote_chars` characters, or one from a step the model was shown only
 * as a summary line. A candidate needs a grounded quote from its own step.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { CheckedQuote, GatedCandidate, RootCauseCandidate } from '../../../src-shared/explain';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { jsonText } from '../text/json-text';

interface GateSettings {
  min_confidence: number;
  min_quote_overlap: number;
  /** Fewer words or characters than this prove nothing: they occur in almost any field by chance. */
  min_quote_words: number;
  min_quote_chars: number;
  vague_words: string[];
}

/** What the model was shown (compact-run.ts): only those steps' fields, and only their first characters, can be quoted. */
export interface ShownView {
  fullTextSteps: Set<string>;
  fullTextChars: number;
}

/** Fields longer than this are searched in their first part only (the view the model saw is shorter still). */
const FIELD_SEARCH_MAX = 400_000;
const WORD = /[\p{L}\p{N}_]+/gu;

function normalise(text: string): string {
  // Spacing around JSON punctuation is the model's re-typing, not content ('"a": 1' quotes '{"a":1}').
  return text.replace(/\s+/g, ' ').replace(/ ?([:,{}[\]]) ?/g, '$1').trim().toLowerCase();
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

function fieldValue(run: RunDetail, step: Step | undefined, field: Evidence['field']): Json | null {
  if (field === 'run') return { input: run.run.input ?? null, output: run.run.output ?? null, error: (run.run.error as unknown as Json) ?? null };
  if (!step) return null;
  if (field === 'error') return (step.error as unknown as Json) ?? null;
  if (field === 'metadata') return step.metadata as Json;
  return step[field];
}

/**
 * The texts a quote may come from: the leaves (as a person reads them) and the JSON (as the model
 * was shown it, cut where the view cut it). Only `leaves` serves the word-overlap tolerance: JSON
 * keys are structure, not what a step said.
 */
function haystacks(value: Json | null, extra: (text: string) => string[], maxChars: number): { exact: string[]; leaves: string[] } {
  if (value === null) return { exact: [], leaves: [] };
  const json = JSON.stringify(value).slice(0, maxChars);
  const leaves = jsonText(value, maxChars);
  return { exact: [leaves, json, ...extra(leaves), ...extra(json)], leaves: [leaves, ...extra(leaves)] };
}

/** Longest common subsequence of two short word lists (word order counts). */
function commonInOrder(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) row[j + 1] = x === b[j] ? prev[j] + 1 : Math.max(prev[j + 1], row[j]);
    prev = row;
  }
  return prev[b.length];
}

/**
 * The share of the quote's words found, in the quote's order, in the window of the text (as long as
 * the quote) that holds most of them: a re-spaced or lightly re-typed quote passes, the quote's
 * words shuffled into another sentence do not.
 */
function bestWindowOverlap(quoteWords: string[], textWords: string[]): number {
  const n = quoteWords.length;
  if (n === 0 || textWords.length === 0) return 0;
  const end = bestBagWindowEnd(quoteWords, textWords);
  if (end < 0) return 0;
  return commonInOrder(quoteWords, textWords.slice(Math.max(0, end - n + 1), end + 1)) / n;
}

/** Index of the last word of the window holding most of the quote's words (as a bag); -1 when none. */
function bestBagWindowEnd(quoteWords: string[], textWords: string[]): number {
  const n = quoteWords.length;
  const want = new Map<string, number>();
  for (const w of quoteWords) want.set(w, (want.get(w) ?? 0) + 1);
  const have = new Map<string, number>();
  let hits = 0;
  let best = 0;
  const add = (w: string, d: 1 | -1) => {
    const need = want.get(w);
    if (need === undefined) return;
    const before = have.get(w) ?? 0;
    const after = before + d;
    have.set(w, after);
    if (d === 1 && after <= need) hits++;
    if (d === -1 && before <= need) hits--;
  };
  let bestEnd = -1;
  for (let i = 0; i < textWords.length; i++) {
    add(textWords[i], 1);
    if (i >= n) add(textWords[i - n], -1);
    if (hits > best) {
      best = hits;
      bestEnd = i;
    }
    if (best === n) break;
  }
  return bestEnd;
}

function vagueMatcher(words: string[]): RegExp | null {
  const parts = words.map((w) => w.trim()).filter(Boolean);
  if (parts.length === 0) return null;
  return new RegExp(`\\b(?:${parts.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+')).join('|')})\\b`, 'iu');
}

function checkQuote(run: RunDetail, ev: Evidence, s: GateSettings, redactedForms: (text: string) => string[] = () => [], shown?: ShownView): CheckedQuote {
  const base = { step_id: ev.step_id, field: ev.field, quote: ev.quote };
  const step = run.steps.find((x) => x.step_id === ev.step_id);
  if (ev.field !== 'run' && !step) return { ...base, grounded: false, match: 'unknown_step', overlap: 0 };
  const quoteWords = wordsOf(ev.quote);
  if (quoteWords.length < Math.max(1, s.min_quote_words) || normalise(ev.quote).length < Math.max(3, s.min_quote_chars)) return { ...base, grounded: false, match: 'too_short', overlap: 0 };
  const vague = vagueMatcher(s.vague_words);
  if (vague?.test(ev.quote)) return { ...base, grounded: false, match: 'vague', overlap: 0 };
  // A step the model saw only as a one-line summary has no field it could have quoted: a match there is a guess.
  if (shown && ev.field !== 'run' && !shown.fullTextSteps.has(ev.step_id)) return { ...base, grounded: false, match: 'not_shown', overlap: 0 };
  const texts = haystacks(fieldValue(run, step, ev.field), redactedForms, shown?.fullTextChars ?? FIELD_SEARCH_MAX);
  const q = normalise(ev.quote);
  if (texts.exact.some((t) => normalise(t).includes(q))) return { ...base, grounded: true, match: 'exact', overlap: 1 };
  let overlap = 0;
  for (const t of texts.leaves) overlap = Math.max(overlap, bestWindowOverlap(quoteWords, wordsOf(t)));
  const grounded = overlap >= s.min_quote_overlap;
  return { ...base, grounded, match: grounded ? 'overlap' : 'not_found', overlap: Math.round(overlap * 1000) / 1000 };
}

const MATCH_WORDS: Record<CheckedQuote['match'], string> = {
  exact: 'found verbatim',
  overlap: 'found with small differences',
  not_found: 'not found in that field',
  vague: 'hedges rather than quotes',
  unknown_step: 'names a step the run does not have',
  too_short: 'too short to prove anything',
  not_shown: 'quotes a step the model was not shown in full',
};

/** Accepted candidates (in the model's order) and rejected ones, each with the reasons it was dropped. */
export function gateCandidates(
  run: RunDetail,
  candidates: RootCauseCandidate[],
  s: GateSettings,
  redactedForms?: (text: string) => string[],
  shown?: ShownView,
): { accepted: GatedCandidate[]; rejected: GatedCandidate[] } {
  const accepted: GatedCandidate[] = [];
  const rejected: GatedCandidate[] = [];
  for (const c of candidates) {
    const step = run.steps.find((x) => x.step_id === c.step_id);
    const evidence = c.evidence.map((e) => checkQuote(run, e, s, redactedForms, shown));
    const reasons: string[] = [];
    if (!step) reasons.push(`the run has no step ${c.step_id}`);
    if (c.confidence < s.min_confidence) reasons.push(`confidence ${c.confidence.toFixed(2)} is below ${s.min_confidence.toFixed(2)}`);
    // Another step's words, or the run's, may support a candidate but never ground it alone.
    const own = evidence.filter((e) => e.field !== 'run' && e.step_id === c.step_id);
    if (!own.some((e) => e.grounded)) {
      const why =
        own.length === 0
          ? evidence.length === 0
            ? 'it quotes nothing'
            : `it quotes only other steps or the run, never step ${c.step_id} itself`
          : own.map((e) => `"${e.quote.slice(0, 60)}" ${MATCH_WORDS[e.match]}`).join('; ');
      reasons.push(`no quote from step ${c.step_id} itself is grounded in the trace (${why})`);
    }
    const gated: GatedCandidate = { ...c, evidence, step_name: step?.name ?? null, rejected_because: reasons };
    (reasons.length ? rejected : accepted).push(gated);
  }
  return { accepted, rejected };
}
