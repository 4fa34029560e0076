/**
 * Rule check: a step whose score (its worst check) is below
 * `scoring.unhealthy_below` and that was not recovered is a finding of
 * strength weight × (1 − score), with weight `strength.hard_check` for hard
 * checks and `strength.soft_check` for soft ones. Steps whose output did not
 * reach the final output (outside its lineage slice) get
 * blame.out_of_slice_share of that: they
 * may still matter (lineage is inferred), but less likely. Errors, and error
 * payloads already traced to the step that produced their input, are left to
 * rules-errors. A tool whose historical failure rate is at least
 * scoring.tool.flaky_rate is a finding of strength soft_check × rate even
 * when its own score is above the threshold.
 */
import { quoteStep } from '../text/evidence-quote';
import { checkNamed } from '../scoring/score-run';
import { evidenceList, stepLabel, type BlameWork, type Finding } from './finding';
import { S_OK } from './step-codes';

/** Checks whose low value may be explained by bad input from upstream. */
const DEPENDENT = /^(?:llm\.(?:refusal|non_responsive|empty|consistency)|retrieval\.|tool\.empty|user\.)/;

export function checkFindings(w: BlameWork, handled: Set<number>): Finding[] {
  const g = w.graph;
  const st = w.settings.blame.strength;
  const floor = w.settings.scoring.unhealthy_below;
  const out: Finding[] = [];
  for (let p = 0; p < g.steps.length; p++) {
    const a = w.assess[p];
    if (!g.live[p] || w.recovered.has(p) || handled.has(p) || a.score === null || g.statuses[p] !== S_OK) continue;
    // A tool that often fails elsewhere is a suspect even when this call looked fine.
    const worst = a.score < floor ? a.worst : (checkNamed(a, 'tool.flaky') ?? null);
    if (!worst) continue;
    const inSlice = w.lineage.finalProducer < 0 || w.slice.has(p);
    const strength = (worst.hard ? st.hard_check : st.soft_check) * (1 - worst.value) * (inSlice ? 1 : w.settings.blame.out_of_slice_share);
    out.push({
      pos: p,
      rule: `check:${worst.name}`,
      strength,
      reason: `${stepLabel(w, p)} ${worst.explanation} (score ${worst.value.toFixed(2)}).`,
      evidence: evidenceList(worst.evidence ?? quoteStep(g.steps[p], 'output') ?? quoteStep(g.steps[p], 'input')),
      dependent: DEPENDENT.test(worst.name),
    });
  }
  return out;
}
