/**
 * The evidence gate (docs/explain.md §3): a model's root-cause candidate
 * counts only if it quotes the trace. Deterministic, so the same answer is
 * always judged the same way, and every rejection says why.
 *
 * A quote is grounded when, after collapsing white space, it is a verbatim
 * substring of the named step's field, or, as the only tolerance, when at
 * least `min_quote_overlap` of its words occur in one window of the field as
 * long as the quote (models re-type JSON with other spacing or quotes, and
 * drop an article). A quote that hedges ("likely", "the task implies") is
 * never evidence, whatever it matches.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { CheckedQuote, GatedCandidate, RootCauseCandidate } from '../../../src-shared/explain';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { jsonText } from '../text/json-text';

interface GateSettings {
  min_confidence: number;
  min_quote_overlap: number;
  vague_words: string[];
}

/** Fields longer than this are searched in their first part only (the view the model saw is shorter still). */
const FIELD_SEARCH_MAX = 400_000;
const WORD = /[\p{L}\p{N}_]+/gu;

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
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

/** The texts a quote may come from: the leaves (as a person reads them) and the JSON (as the model was shown it). */
function haystacks(value: Json | null, extra: (text: string) => string[]): string[] {
  if (value === null) return [];
  const leaves = jsonText(value, FIELD_SEARCH_MAX);
  const json = JSON.stringify(value).slice(0, FIELD_SEARCH_MAX);
  return [leaves, json, ...extra(leaves), ...extra(json)];
}

/** The best share of the quote's words found in one window of the text's words as long as the quote. */
function bestWindowOverlap(quoteWords: string[], textWords: string[]): number {
  const n = quoteWords.length;
  if (n === 0 || textWords.length === 0) return 0;
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
  for (let i = 0; i < textWords.length; i++) {
    add(textWords[i], 1);
    if (i >= n) add(textWords[i - n], -1);
    if (hits > best) best = hits;
    if (best === n) break;
  }
  return best / n;
}

function vagueMatcher(words: string[]): RegExp | null {
  const parts = words.map((w) => w.trim()).filter(Boolean);
  if (parts.length === 0) return null;
  return new RegExp(`\\b(?:${parts.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+')).join('|')})\\b`, 'iu');
}

function checkQuote(run: RunDetail, ev: Evidence, s: GateSettings, redactedForms: (text: string) => string[] = () => []): CheckedQuote {
  const base = { step_id: ev.step_id, field: ev.field, quote: ev.quote };
  const step = run.steps.find((x) => x.step_id === ev.step_id);
  if (ev.field !== 'run' && !step) return { ...base, grounded: false, match: 'unknown_step', overlap: 0 };
  const quoteWords = wordsOf(ev.quote);
  if (quoteWords.length === 0 || normalise(ev.quote).length < 3) return { ...base, grounded: false, match: 'too_short', overlap: 0 };
  const vague = vagueMatcher(s.vague_words);
  if (vague?.test(ev.quote)) return { ...base, grounded: false, match: 'vague', overlap: 0 };
  const texts = haystacks(fieldValue(run, step, ev.field), redactedForms);
  const q = normalise(ev.quote);
  if (texts.some((t) => normalise(t).includes(q))) return { ...base, grounded: true, match: 'exact', overlap: 1 };
  let overlap = 0;
  for (const t of texts) overlap = Math.max(overlap, bestWindowOverlap(quoteWords, wordsOf(t)));
  const grounded = overlap >= s.min_quote_overlap;
  return { ...base, grounded, match: grounded ? 'overlap' : 'not_found', overlap: Math.round(overlap * 1000) / 1000 };
}

const MATCH_WORDS: Record<CheckedQuote['match'], string> = {
  exact: 'found verbatim',
  overlap: 'found with small differences',
  not_found: 'not found in that field',
  vague: 'hedges rather than quotes',
  unknown_step: 'names a step the run does not have',
  too_short: 'too short to check',
};

/** Accepted candidates (in the model's order) and rejected ones, each with the reasons it was dropped. */
export function gateCandidates(
  run: RunDetail,
  candidates: RootCauseCandidate[],
  s: GateSettings,
  redactedForms?: (text: string) => string[],
): { accepted: GatedCandidate[]; rejected: GatedCandidate[] } {
  const accepted: GatedCandidate[] = [];
  const rejected: GatedCandidate[] = [];
  for (const c of candidates) {
    const step = run.steps.find((x) => x.step_id === c.step_id);
    const evidence = c.evidence.map((e) => checkQuote(run, e, s, redactedForms));
    const reasons: string[] = [];
    if (!step) reasons.push(`the run has no step ${c.step_id}`);
    if (c.confidence < s.min_confidence) reasons.push(`confidence ${c.confidence.toFixed(2)} is below ${s.min_confidence.toFixed(2)}`);
    if (!evidence.some((e) => e.grounded)) {
      const why = evidence.length === 0 ? 'it quotes nothing' : evidence.map((e) => `"${e.quote.slice(0, 60)}" ${MATCH_WORDS[e.match]}`).join('; ');
      reasons.push(`no quote is grounded in the trace (${why})`);
    }
    const gated: GatedCandidate = { ...c, evidence, step_name: step?.name ?? null, rejected_because: reasons };
    (reasons.length ? rejected : accepted).push(gated);
  }
  return { accepted, rejected };
}
