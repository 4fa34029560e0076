/**
 * LLM scorer: refusals, truncation (finish reason), empty output,
 * non-responsive answers and self-consistency of recorded samples. A short
 * answer is not penalised: completeness is an absolute floor (at least one
 * word), because "Paris" is a complete answer to "capital of France?".
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { makeCheck, NO_CHECKS, type Check } from './check';
import { quoteStep, shortQuote } from '../text/evidence-quote';
import { hasToolCalls, isObj, jsonText, llmText } from '../text/json-text';
import { meanPairwiseRougeL } from './rouge-l';
import type { Settings } from './settings';
import { coverage, termSet, termsOf, wordsOf } from '../text/text-terms';

const compiled = new WeakMap<Settings, RegExp[]>();

function refusalPatterns(settings: Settings): RegExp[] {
  let list = compiled.get(settings);
  if (!list) {
    list = settings.scoring.llm.refusal_patterns.map((p) => new RegExp(p, 'iu'));
    compiled.set(settings, list);
  }
  return list;
}

function finishReasonOf(step: Step): string | null {
  const m = step.metadata?.finish_reason;
  if (typeof m === 'string') return m;
  const out = step.output;
  if (isObj(out)) {
    for (const k of ['finish_reason', 'stop_reason']) if (typeof out[k] === 'string') return out[k] as string;
    const choices = out.choices;
    if (Array.isArray(choices) && isObj(choices[0]) && typeof choices[0].finish_reason === 'string') return choices[0].finish_reason;
  }
  return null;
}

/** The first refusal phrase in `text`, or null. */
function findRefusal(text: string, settings: Settings): string | null {
  const head = text.slice(0, 4000);
  for (const re of refusalPatterns(settings)) {
    const m = re.exec(head);
    if (m) return m[0];
  }
  return null;
}

export function scoreLlm(step: Step, settings: Settings): Check[] {
  if (step.status !== 'ok') return [];
  const s = settings.scoring.llm;
  // Made when the first check is found (NO_CHECKS says why).
  let checks: Check[] | null = null;
  const text = llmText(step.output);
  const toolCalls = hasToolCalls(step.output);

  const finish = finishReasonOf(step);
  if (finish !== null && s.truncation_finish_reasons.includes(finish)) {
    const ev = quoteStep(step, 'metadata', finish) ?? quoteStep(step, 'output', finish);
    (checks ??= []).push(makeCheck('llm', 'llm.truncated', s.truncation_score, `stopped at the token limit (finish reason "${finish}")`, { hard: true, evidence: ev }));
  }

  const refusal = findRefusal(text, settings);
  if (refusal !== null) {
    (checks ??= []).push(makeCheck('llm', 'llm.refusal', s.refusal_score, `refused or declined: "${refusal}"`, { hard: true, evidence: quoteStep(step, 'output', refusal) }));
  }

  if (!toolCalls && wordsOf(text, 5).length < s.min_output_terms) {
    (checks ??= []).push(makeCheck('llm', 'llm.empty', s.empty_output_score, 'returned no text and no tool call', { hard: true, evidence: null }));
  } else if (refusal === null && !toolCalls) {
    const outTerms = termSet(text, 2000);
    if (outTerms.size >= s.non_responsive_min_terms) {
      const inTerms = termSet(jsonText(step.input, 50_000), 20_000);
      const overlap = coverage(outTerms, inTerms);
      if (overlap <= s.non_responsive_max_overlap) {
        (checks ??= []).push(
          // Soft: recommendations and creative answers may legitimately share no words with the request.
          makeCheck('llm', 'llm.non_responsive', s.non_responsive_score, `shares ${(overlap * 100).toFixed(0)}% of its terms with its input: the answer is about something else`, {
            hard: false,
            evidence: quoteStep(step, 'output'),
          }),
        );
      }
    }
  }

  const samples = step.metadata?.samples;
  if (Array.isArray(samples)) {
    const texts = (samples as Json[]).map((x) => (typeof x === 'string' ? x : llmText(x))).filter((x) => x.trim() !== '');
    if (texts.length >= 2) {
      const c = meanPairwiseRougeL(texts.map((t) => termsOf(t, s.consistency_max_tokens)));
      const consistent = c >= s.consistency_floor;
      (checks ??= []).push(
        makeCheck(
          'llm',
          'llm.consistency',
          consistent ? 1 : c,
          `gave ${texts.length} samples that agree at ROUGE-L ${c.toFixed(2)} (floor ${s.consistency_floor})${consistent ? '' : `: e.g. "${shortQuote(texts[0].trim(), 50)}" vs "${shortQuote(texts[1].trim(), 50)}"`}`,
          { evidence: consistent ? null : quoteStep(step, 'metadata', texts[1].slice(0, 100)) },
        ),
      );
    }
  }
  return checks ?? NO_CHECKS;
}
