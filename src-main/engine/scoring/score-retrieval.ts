/**
 * Retrieval scorer: did the step return passages, and are they about the
 * query? The step's score is its best passage (one good passage is enough
 * for an answer, so "partly relevant but sufficient" stays healthy); each
 * passage's own relevance is kept as an informational check.
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { makeCheck, type Check } from './check';
import { quoteStep, shortQuote } from '../text/evidence-quote';
import { jsonText, passagesOf, queryOf } from '../text/json-text';
import type { RelevanceProvider } from './relevance';
import type { Settings } from './settings';
import { lowerCase, STOPWORDS, stemTerm, termSet, wordsOf } from '../text/text-terms';

function retrievalPassages(output: Json | null): string[] | null {
  const passages = passagesOf(output);
  if (passages !== null) return passages;
  if (output === null) return [];
  if (typeof output === 'string') return output.trim() === '' ? [] : [output];
  return null;
}

function retrievalQuery(step: Step, runInput: Json | null): string {
  const q = queryOf(step.input);
  return q.trim() !== '' ? q : jsonText(runInput, 5000);
}

/**
 * Passages that share only the query's general theme. With two or more
 * passages, split the query's content terms into those every passage holds
 * (the theme: "return", "policy") and those no passage holds
 * ("electronics"); when that split covers the whole query, the result set
 * agrees with the query on nothing that tells its passages apart — it is
 * about the topic, not about the question. Terms the pipeline's other runs
 * ask about in most of their inputs (the product name of a support bot) are
 * background, not what this query is about, and never count as missing.
 */
export function themeOnlyMatch(query: string, passages: string[], background?: TermBackground): { shared: string[]; missing: string[] } | null {
  if (passages.length < 2) return null;
  const words = new Map<string, string>();
  for (const w of wordsOf(query, 2000)) {
    if (STOPWORDS.has(w)) continue;
    const t = stemTerm(w.replace(/['’].*$/, ''));
    if (!words.has(t)) words.set(t, w);
  }
  if (words.size < 2) return null;
  // Does a passage hold the term? A word of the passage starting with its stem (cheaper than stemming every passage).
  const lowered = passages.map((p) => lowerCase(p.length > 20_000 ? p.slice(0, 20_000) : p));
  const shared: string[] = [];
  const missing: string[] = [];
  for (const [t, w] of words) {
    // A loop, not reduce with a closure over the term: this runs for every retrieval of a large run.
    let n = 0;
    for (let i = 0; i < lowered.length; i++) if (holds(lowered[i], t) || holds(lowered[i], w)) n++;
    if (n === lowered.length) shared.push(w);
    else if (n === 0) {
      if (background && background.isBackground(t)) continue;
      missing.push(w);
    } else return null;
  }
  return shared.length > 0 && missing.length > 0 ? { shared, missing } : null;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Does `text` hold `stem` at the start of a word? */
function holds(text: string, stem: string): boolean {
  for (let i = text.indexOf(stem); i !== -1; i = text.indexOf(stem, i + 1)) {
    if (i === 0 || !LETTER_OR_DIGIT.test(text[i - 1])) return true;
  }
  return false;
}

/** What the pipeline's other runs ask about most of the time: a term in at least half of their inputs. */
export interface TermBackground {
  isBackground(term: string): boolean;
}

export function termBackground(inputs: string[]): TermBackground | undefined {
  if (inputs.length < 3) return undefined;
  const df = new Map<string, number>();
  for (const text of inputs) for (const t of termSet(text, 5000)) df.set(t, (df.get(t) ?? 0) + 1);
  return { isBackground: (t) => (df.get(t) ?? 0) >= inputs.length / 2 };
}

export function scoreRetrieval(step: Step, settings: Settings, relevance: RelevanceProvider, runInput: Json | null, background?: TermBackground): Check[] {
  if (step.status !== 'ok') return [];
  const r = settings.scoring.retrieval;
  const query = retrievalQuery(step, runInput);
  const passages = retrievalPassages(step.output);
  if (passages === null) return [];
  if (passages.length === 0) {
    const ev = quoteStep(step, 'input', queryOf(step.input)) ?? quoteStep(step, 'input');
    return [
      makeCheck('retrieval', 'retrieval.empty', r.empty_score, `returned no passages for "${shortQuote(query.trim(), 80)}"`, { evidence: ev }),
    ];
  }
  const raw = relevance.score(query, passages);
  // Only a result set that looks relevant can be relevant by its theme alone.
  // Loops, not some/forEach/reduce/filter with closures: this runs for every retrieval of a large run.
  let anyRelevant = false;
  for (let i = 0; i < raw.length; i++) if (raw[i] >= r.relevant_at) anyRelevant = true;
  const theme = anyRelevant ? themeOnlyMatch(query, passages, background) : null;
  // Passages that match only the query's general theme: none is relevant, however much of the query they cover.
  const scores = theme ? raw.map((x) => Math.min(x, r.theme_only_score)) : raw;
  let best = 0;
  let bestAt = 0;
  let sum = 0;
  let relevant = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i];
    if (s > best) {
      best = s;
      bestAt = i;
    }
    sum += s;
    if (s >= r.relevant_at) relevant++;
  }
  const mean = sum / scores.length;
  const checks: Check[] = [];
  const ev = best >= r.relevant_at ? quoteStep(step, 'output', passages[bestAt].slice(0, 120)) : quoteStep(step, 'output');
  const themeNote = theme
    ? `; every passage matches only ${theme.shared.map((t) => `"${t}"`).join(', ')} of the query, and none mentions ${theme.missing.map((t) => `"${t}"`).join(', ')}`
    : '';
  checks.push(
    makeCheck(
      'retrieval',
      'retrieval.relevance',
      best,
      `found ${relevant} of ${passages.length} passages relevant to "${shortQuote(query.trim(), 80)}" (best ${best.toFixed(2)}, mean ${mean.toFixed(2)}, ${relevance.name})${themeNote}`,
      { evidence: ev },
    ),
  );
  for (let i = 0; i < scores.length; i++) {
    checks.push(makeCheck('retrieval', `retrieval.passage[${i}]`, scores[i], `relevance ${scores[i].toFixed(2)}: "${shortQuote(passages[i].trim(), 60)}"`, { info: true }));
  }
  return checks;
}
