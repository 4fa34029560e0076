/**
 * Rules for failures the detector saw in the answer or around it:
 *  - gave-up: the final answer gives up or refuses. Bad content that an
 *    upstream fault usually explains (an empty or off-topic lookup, an error),
 *    so it is dependent: with a cause upstream it is that cause's symptom,
 *    without one the step that wrote the answer is blamed.
 *  - guardrail-block: a guardrail replaced or blocked the content on its way
 *    to the answer.
 *  - hidden-error: a step quotes an error no recorded step raised (the
 *    tracing client dropped the failing span); the step that made the call —
 *    the latest earlier step that issued tool calls, else the parent — is
 *    where it failed.
 */
import type { FailureDetection } from '../../../src-shared/analysis';
import { quoteStep } from '../scoring/evidence-quote';
import { hasToolCalls } from '../scoring/json-text';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { isAncestor } from './run-graph';

function signalPos(w: BlameWork, detection: FailureDetection, name: string): number {
  const s = detection.signals.find((x) => x.name === name);
  if (!s || s.step_id === null) return -1;
  return w.graph.steps.findIndex((x) => x.step_id === s.step_id);
}

/** The step that issued the call whose failure step `p` quotes. */
function callerOf(w: BlameWork, p: number): number {
  const g = w.graph;
  for (let c = p - 1; c >= 0; c--) {
    if (!g.live[c] || isAncestor(g, c, p)) continue;
    if (hasToolCalls(g.steps[c].output)) return c;
  }
  const parent = g.parent[p];
  return parent >= 0 ? parent : p;
}

export function signalFindings(w: BlameWork, detection: FailureDetection): Finding[] {
  const g = w.graph;
  const st = w.settings.blame.strength;
  const out: Finding[] = [];

  const guard = signalPos(w, detection, 'guardrail-block');
  if (guard >= 0) {
    const sig = detection.signals.find((x) => x.name === 'guardrail-block')!;
    out.push({
      pos: guard,
      rule: 'guardrail-block',
      strength: st.guardrail_block,
      reason: `${stepLabel(w, guard)} ${sig.description.replace(/^guardrail step "[^"]*" /, '')}, and the answer carries the block instead of the content it received.`,
      evidence: evidenceList(...(sig.evidence ?? []), quoteStep(g.steps[guard], 'input')),
      dependent: false,
    });
  }

  for (const name of ['final-gives-up', 'final-refusal']) {
    const at = signalPos(w, detection, name);
    if (at < 0 || (guard >= 0 && (at === guard || w.slice.has(guard)))) continue;
    const sig = detection.signals.find((x) => x.name === name)!;
    out.push({
      pos: at,
      rule: 'gave-up',
      strength: st.gave_up,
      reason: `${stepLabel(w, at)} wrote a final answer that ${name === 'final-refusal' ? 'refuses' : 'gives up'} (${q(sig.description.replace(/^[^"]*"/, '').replace(/"$/, ''), 60)}) and nothing upstream explains it.`,
      evidence: evidenceList(...(sig.evidence ?? []), quoteStep(g.steps[at], 'output')),
      dependent: true,
    });
    break;
  }

  const hidden = signalPos(w, detection, 'hidden-error');
  if (hidden >= 0) {
    const caller = callerOf(w, hidden);
    const sig = detection.signals.find((x) => x.name === 'hidden-error')!;
    out.push({
      pos: caller,
      rule: 'hidden-error',
      strength: st.hidden_error,
      reason: `${stepLabel(w, caller)} made a call that failed without leaving a trace: ${stepLabel(w, hidden)} quotes its error.`,
      evidence: evidenceList(...(sig.evidence ?? []), caller !== hidden ? quoteStep(g.steps[caller], 'output') : null),
      dependent: false,
    });
  }
  return out;
}
