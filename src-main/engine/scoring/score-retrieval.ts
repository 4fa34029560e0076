/**
 * Retrieval scorer: did the step return passages, and are they about the
 * query? The step's score is its best passage (one good passage is enough
 * for an answer, so "partly relevant but sufficient" stays healthy); each
 * passage's own relevance is kept as an informational check.
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { makeCheck, type Check } from './check';
import { quoteStep, shortQuote } from './evidence-quote';
import { jsonText, passagesOf, queryOf } from './json-text';
import type { RelevanceProvider } from './relevance';
import type { Settings } from './settings';

export function retrievalPassages(output: Json | null): string[] | null {
  const passages = passagesOf(output);
  if (passages !== null) return passages;
  if (output === null) return [];
  if (typeof output === 'string') return output.trim() === '' ? [] : [output];
  return null;
}

export function retrievalQuery(step: Step, runInput: Json | null): string {
  const q = queryOf(step.input);
  return q.trim() !== '' ? q : jsonText(runInput, 5000);
}

export function scoreRetrieval(step: Step, settings: Settings, relevance: RelevanceProvider, runInput: Json | null): Check[] {
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
  const scores = relevance.score(query, passages);
  let best = 0;
  let bestAt = 0;
  scores.forEach((s, i) => {
    if (s > best) {
      best = s;
      bestAt = i;
    }
  });
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const checks: Check[] = [];
  const relevant = scores.filter((s) => s >= r.relevant_at).length;
  const ev = best >= r.relevant_at ? quoteStep(step, 'output', passages[bestAt].slice(0, 120)) : quoteStep(step, 'output');
  checks.push(
    makeCheck(
      'retrieval',
      'retrieval.relevance',
      best,
      `found ${relevant} of ${passages.length} passages relevant to "${shortQuote(query.trim(), 80)}" (best ${best.toFixed(2)}, mean ${mean.toFixed(2)}, ${relevance.name})`,
      { evidence: ev },
    ),
  );
  scores.forEach((s, i) => {
    checks.push(makeCheck('retrieval', `retrieval.passage[${i}]`, s, `relevance ${s.toFixed(2)}: "${shortQuote(passages[i].trim(), 60)}"`, { info: true }));
  });
  return checks;
}
