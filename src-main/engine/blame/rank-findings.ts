/**
 * From findings to a ranked verdict.
 *  1. Findings on the same step merge (strongest reason, evidence pooled).
 *  2. Repeats collapse: the same rule firing on a step of the same name with
 *     the same quote is one failure; later ones are symptoms of the first.
 *  3. Cause before symptom: a dependent finding (bad content) with a finding
 *     of strength ≥ blame.symptom_min_cause_strength upstream of it in the
 *     lineage becomes that finding's symptom; an iteration-limit error with a
 *     finding inside its subtree becomes that finding's symptom.
 *  4. Order by strength; position (earlier first) only breaks exact ties.
 *  5. Confidence from the gap to the runner-up (the seed's thresholds): below
 *     blame.co_blame_gap it is low and the near ties are co-blamed; up to
 *     blame.medium_gap medium; above, high. A top strength below
 *     blame.confidence_medium_below caps it at medium, below
 *     blame.confidence_low_below (and the verdict-fallback rule) at low.
 *     The top finding's own co-blames (coBlame) are added to the co-blamed.
 */
import type { Confidence } from '../../../src-shared/analysis';
import type { BlameWork, Finding, Symptom } from './finding';
import { upstreamOf } from './lineage';
import { isAncestor } from './run-graph';

export interface Ranked {
  causes: Finding[];
  confidence: Confidence;
  coBlamed: Finding[];
  symptoms: Symptom[];
}

function merge(findings: Finding[]): Finding[] {
  const byPos = new Map<number, Finding>();
  for (const f of findings) {
    const cur = byPos.get(f.pos);
    if (!cur) {
      byPos.set(f.pos, { ...f, evidence: [...f.evidence] });
      continue;
    }
    const [strong, weak] = f.strength > cur.strength ? [f, cur] : [cur, f];
    const evidence = [...strong.evidence];
    for (const e of weak.evidence) if (evidence.length < 4 && !evidence.some((x) => x.quote === e.quote && x.step_id === e.step_id)) evidence.push(e);
    const coBlame = [...(strong.coBlame ?? []), ...(weak.coBlame ?? [])];
    byPos.set(f.pos, { ...strong, evidence, dependent: strong.dependent && weak.dependent, ...(coBlame.length ? { coBlame } : {}) });
  }
  return [...byPos.values()];
}

export function rankFindings(w: BlameWork, raw: Finding[], budget: number[]): Ranked {
  const g = w.graph;
  const symptoms: Symptom[] = [...w.symptoms];
  const symptomPos = new Set(symptoms.map((s) => s.pos));
  let findings = merge(raw).filter((f) => !symptomPos.has(f.pos));

  // 2. repeats
  findings.sort((a, b) => a.pos - b.pos);
  const firstOf = new Map<string, Finding>();
  const kept: Finding[] = [];
  for (const f of findings) {
    const key = `${g.steps[f.pos].name}\u0000${f.rule}\u0000${f.evidence[0]?.quote ?? ''}`;
    const first = firstOf.get(key);
    if (first) {
      symptoms.push({ pos: f.pos, causedBy: first.pos, reason: `repeats the failure of step ${g.steps[first.pos].step_id}` });
      continue;
    }
    firstOf.set(key, f);
    kept.push(f);
  }
  findings = kept;

  // 3. cause before symptom (upstream first, so chains resolve to their root)
  const min = w.settings.blame.symptom_min_cause_strength;
  const demoted = new Set<Finding>();
  const budgetSet = new Set(budget);
  for (const f of findings) {
    if (!f.dependent) continue;
    if (budgetSet.has(f.pos)) {
      const inside = findings.filter((o) => o !== f && !demoted.has(o) && isAncestor(g, f.pos, o.pos));
      const best = inside.sort((a, b) => b.strength - a.strength)[0];
      if (best) {
        demoted.add(f);
        symptoms.push({ pos: f.pos, causedBy: best.pos, reason: `hit its iteration limit because of the failure of step ${g.steps[best.pos].step_id}` });
        continue;
      }
    }
    const up = upstreamOf(g, w.lineage, f.pos, 20_000);
    let cause: Finding | null = null;
    for (const o of findings) {
      if (o === f || demoted.has(o) || o.strength < min || !up.has(o.pos)) continue;
      if (!cause || o.strength > cause.strength) cause = o;
    }
    if (cause) {
      demoted.add(f);
      symptoms.push({ pos: f.pos, causedBy: cause.pos, reason: `its output is bad because its input came from step ${g.steps[cause.pos].step_id}: ${f.reason}` });
    }
  }
  const causes = findings.filter((f) => !demoted.has(f)).sort((a, b) => b.strength - a.strength || a.pos - b.pos);

  const { co_blame_gap: coGap, medium_gap: mediumGap } = w.settings.blame;
  let confidence: Confidence = 'high';
  let coBlamed: Finding[] = [];
  if (causes.length > 0) {
    const top = causes[0];
    const gap = causes.length > 1 ? top.strength - causes[1].strength : top.strength;
    if (gap < coGap) {
      confidence = 'low';
      coBlamed = causes.slice(1).filter((c) => top.strength - c.strength < coGap);
    } else if (gap <= mediumGap) confidence = 'medium';
    // A lone weak finding is not a confident one: the strength caps the confidence.
    const { confidence_low_below: lowBelow, confidence_medium_below: mediumBelow } = w.settings.blame;
    if (top.strength < lowBelow || top.rule === 'verdict-fallback') confidence = 'low';
    else if (top.strength < mediumBelow && confidence === 'high') confidence = 'medium';
    // Where the location is a matter of view (the writer of a bad call, the call that failed), the other is co-blamed.
    for (const c of top.coBlame ?? []) {
      if (c.pos !== top.pos && !coBlamed.some((x) => x.pos === c.pos)) coBlamed = [...coBlamed, c];
    }
  }
  return { causes, confidence, coBlamed, symptoms };
}
