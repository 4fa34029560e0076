/**
 * "Seen before": the remembered motifs closest to a new failure, by lexical
 * similarity (docs/motifs.md §3). A motif's terms (name, requirement,
 * violation, cues) are compared with the failure's (the run's input, the
 * blamed steps' names and outputs, the failure description); a motif learned
 * at a step of the same signature and type counts extra. Lexical overlap is
 * the starting point the issue asks for; an embedding provider could replace
 * `similarity` without changing callers.
 */
import type { BlameResult } from '../../../src-shared/analysis';
import type { FailureMotif, SeenBefore } from '../../../src-shared/motifs';
import type { RunDetail } from '../../../src-shared/model';
import { jsonText } from '../text/json-text';
import { termSet } from '../text/text-terms';
import { stepSignature } from './derive-motif';

/** Share of the score given to the step signature matching; the rest is term coverage. */
const SIGNATURE_WEIGHT = 0.35;
const TEXT_MAX = 20_000;

function motifTerms(m: FailureMotif): Set<string> {
  return termSet([m.name, m.requirement, m.violation, m.task_cue, m.violation_cue].join(' '));
}

export function seenBefore(run: RunDetail, blame: BlameResult, motifs: FailureMotif[], opts: { minSimilarity: number; max: number }): SeenBefore[] {
  if (blame.healthy || motifs.length === 0) return [];
  const blamedIds = new Set([...blame.blamed, ...blame.co_blamed].map((f) => f.step_id));
  const blamedSteps = run.steps.filter((s) => blamedIds.has(s.step_id));
  const signatures = new Set(blamedSteps.map((s) => `${stepSignature(s)}\u0000${s.type}`));
  const failureText = [
    jsonText(run.run.input ?? null, TEXT_MAX),
    blame.failure?.description ?? '',
    ...blamedSteps.map((s) => `${s.name} ${jsonText(s.output, TEXT_MAX)}`),
  ].join('\n');
  const failureTerms = termSet(failureText);
  const out: SeenBefore[] = [];
  for (const m of motifs) {
    if (m.source_run_id === run.run.run_id) continue;
    const terms = motifTerms(m);
    const shared = [...terms].filter((t) => failureTerms.has(t));
    const coverage = terms.size ? shared.length / terms.size : 0;
    const sig = signatures.has(`${m.step_signature}\u0000${m.step_type}`) ? 1 : 0;
    const similarity = Math.round((SIGNATURE_WEIGHT * sig + (1 - SIGNATURE_WEIGHT) * coverage) * 1000) / 1000;
    if (similarity < opts.minSimilarity) continue;
    out.push({ motif_id: m.motif_id, name: m.name, similarity, shared_terms: shared.slice(0, 12), source_run_id: m.source_run_id, experiment_id: m.proof?.experiment_id ?? null });
  }
  return out.sort((a, b) => b.similarity - a.similarity || a.motif_id.localeCompare(b.motif_id)).slice(0, opts.max);
}
