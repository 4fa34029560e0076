/**
 * The seed tool's blame formula (agent-blame, DESIGN.md §6), reproduced to
 * compare against on the same scenarios:
 *   blame = (1 − score) × type weight × recency (1 + 0.3·(1 − i/n))
 * with type weights retrieval 1.4, llm 1.2, tool 1.1, prompt 0.9, generic
 * 0.8 (agent: 0.8, as generic); the first errored step is blamed outright;
 * unscored steps are excluded; if nothing is scored the slowest step is
 * blamed with low confidence; i is the step's index in END order (the seed
 * assigned indices at step end, so children sort before parents).
 *
 * The seed's own scorers are not available, so it is fed our scorers'
 * scores, minus the bare status check (the seed did not score a step just
 * for ending without error). It always names a step.
 */
import type { RunDetail } from '../../src-shared/model';
import type { StepAssessment } from '../../src-main/engine/scoring/score-run';

const WEIGHT: Record<string, number> = { retrieval: 1.4, llm: 1.2, tool: 1.1, prompt: 0.9, generic: 0.8, agent: 0.8 };

export interface SeedBlame {
  ranked: { step_id: string; name: string; replay_key: string; blame: number }[];
  confidence: 'high' | 'medium' | 'low';
}

export function seedBlame(detail: RunDetail, assess: StepAssessment[]): SeedBlame {
  const steps = detail.steps;
  const n = steps.length;
  if (n === 0) return { ranked: [], confidence: 'low' };
  const endOrder = steps
    .map((s, k) => ({ k, end: s.ended_at ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.end - b.end || a.k - b.k)
    .map((x) => x.k);
  const idx = new Array<number>(n);
  endOrder.forEach((k, i) => (idx[k] = i));
  const entry = (k: number, blame: number) => ({ step_id: steps[k].step_id, name: steps[k].name, replay_key: steps[k].replay_key, blame });

  const firstErr = endOrder.find((k) => steps[k].status === 'error');
  const scored: { k: number; blame: number }[] = [];
  for (let k = 0; k < n; k++) {
    const checks = assess[k].checks.filter((c) => !c.info && c.source !== 'status');
    if (checks.length === 0) continue;
    const score = Math.min(...checks.map((c) => c.value));
    const blame = (1 - score) * (WEIGHT[steps[k].type] ?? 0.8) * (1 + 0.3 * (1 - idx[k] / n));
    scored.push({ k, blame });
  }
  scored.sort((a, b) => b.blame - a.blame);
  if (firstErr !== undefined) {
    const rest = scored.filter((s) => s.k !== firstErr).map((s) => entry(s.k, s.blame));
    return { ranked: [entry(firstErr, 1), ...rest], confidence: 'high' };
  }
  if (scored.length === 0) {
    let slow = 0;
    for (let k = 1; k < n; k++) if ((steps[k].duration_ms ?? 0) > (steps[slow].duration_ms ?? 0)) slow = k;
    return { ranked: [entry(slow, 0)], confidence: 'low' };
  }
  const gap = scored.length > 1 ? scored[0].blame - scored[1].blame : 1;
  return { ranked: scored.map((s) => entry(s.k, s.blame)), confidence: gap < 0.05 ? 'low' : gap <= 0.2 ? 'medium' : 'high' };
}
