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
import type { FailureDetection, FailureSignal } from '../../../src-shared/analysis';
import { quoteStep } from '../text/evidence-quote';
import { hasToolCalls } from '../text/json-text';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { isAncestor } from './run-graph';
import { upstreamOf } from './lineage';
import type { Check } from '../scoring/check';

/** The detector's signal of that name and the position of the step it was seen on (none without a step). */
function signalAt(w: BlameWork, detection: FailureDetection, name: string): { sig: FailureSignal; pos: number } | null {
  const sig = detection.signals.find((x) => x.name === name);
  const pos = sig?.step_id ? w.graph.pos.get(sig.step_id) : undefined;
  return sig && pos !== undefined ? { sig, pos } : null;
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

const UNUSABLE_CHECKS = new Set(['tool.empty', 'retrieval.empty', 'retrieval.relevance', 'tool.error_payload']);

/** The latest lookup (tool or retrieval) upstream of `at` whose result was empty, irrelevant or an error payload. */
function unusableLookupBefore(w: BlameWork, at: number): { pos: number; check: Check } | null {
  const g = w.graph;
  const up = upstreamOf(g, w.lineage, at, 5000);
  let best: { pos: number; check: Check } | null = null;
  for (const p of up) {
    const t = g.steps[p].type;
    if (p >= at || !g.live[p] || (t !== 'tool' && t !== 'retrieval') || w.recovered.has(p)) continue;
    const c = w.assess[p].checks.find((k) => UNUSABLE_CHECKS.has(k.name) && k.value < w.settings.scoring.unhealthy_below || (k.name === 'tool.empty' && k.value < 1));
    if (c && (!best || p > best.pos)) best = { pos: p, check: c };
  }
  return best;
}

export function signalFindings(w: BlameWork, detection: FailureDetection): Finding[] {
  const g = w.graph;
  const st = w.settings.blame.strength;
  const out: Finding[] = [];

  const guarded = signalAt(w, detection, 'guardrail-block');
  const guard = guarded?.pos ?? -1;
  if (guarded) {
    const { sig } = guarded;
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
    const found = signalAt(w, detection, name);
    if (!found || (guard >= 0 && (found.pos === guard || w.slice.has(guard)))) continue;
    const { sig, pos: at } = found;
    // An answer that gives up usually says so because a lookup it rested on came back with nothing usable.
    const empty = name === 'final-gives-up' ? unusableLookupBefore(w, at) : null;
    if (empty) {
      w.symptoms.push({ pos: at, causedBy: empty.pos, reason: `gave up because ${stepLabel(w, empty.pos)} ${empty.check.explanation}` });
      out.push({
        pos: empty.pos,
        rule: 'gave-up',
        strength: st.gave_up_lookup,
        reason: `${stepLabel(w, empty.pos)} ${empty.check.explanation}, and the answer then gave up (${q(sig.description.replace(/^[^"]*"/, '').replace(/"$/, ''), 60)}).`,
        evidence: evidenceList((empty.check.evidence as Finding['evidence'][number] | undefined) ?? quoteStep(g.steps[empty.pos], 'output'), ...(sig.evidence ?? [])),
        dependent: false,
      });
      break;
    }
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

  const quoted = signalAt(w, detection, 'hidden-error');
  if (quoted) {
    const { sig, pos: hidden } = quoted;
    const caller = callerOf(w, hidden);
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
