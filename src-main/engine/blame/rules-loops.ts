/**
 * Rule no-progress: in a loop (loops.ts), the first repeat is the step that
 * made no progress — an LLM that issued the same call again with the
 * previous result already in its input, or, for a repeated lookup, the step
 * that produced its repeated input. It is a dependent finding: when the
 * repeated lookup itself failed (an error payload, an empty result), that
 * failure is the cause and the loop its symptom.
 */
import { quoteStep } from '../text/evidence-quote';
import { evidenceList, stepLabel, type BlameWork, type Finding } from './finding';
import { inputProducerOf } from './rules-errors';

export function noProgressFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const out: Finding[] = [];
  for (const loop of w.loops) {
    const second = loop.occurrences[1];
    let target = second;
    if (g.steps[second].type !== 'llm') {
      const prod = inputProducerOf(w, second);
      if (prod < 0 || g.steps[prod].type !== 'llm') continue;
      target = prod;
    }
    out.push({
      pos: target,
      rule: 'no-progress',
      strength: w.settings.blame.strength.no_progress,
      reason: `${stepLabel(w, target)} repeated the same ${g.steps[second].type === 'llm' ? 'call' : `input to "${loop.name}"`} ${loop.occurrences.length} times in all, so the loop made no progress.`,
      evidence: evidenceList(quoteStep(g.steps[target], 'output') ?? quoteStep(g.steps[second], 'input')),
      dependent: true,
    });
  }
  return out;
}
