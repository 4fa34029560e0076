import type { BlameResult, StepHealth } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';

export type StepLook = 'blamed' | 'co-blamed' | 'symptom' | 'error' | 'weak' | 'healthy' | 'unscored' | 'running';

export interface BlameIndex {
  health: Map<string, StepHealth>;
  blamed: Set<string>;
  coBlamed: Set<string>;
  symptoms: Set<string>;
  lineage: Set<string>;
}

export function indexBlame(blame: BlameResult | undefined): BlameIndex {
  return {
    health: new Map((blame?.step_scores ?? []).map((h) => [h.step_id, h])),
    blamed: new Set((blame?.blamed ?? []).slice(0, 1).map((b) => b.step_id)),
    coBlamed: new Set([...(blame?.blamed ?? []).slice(1), ...(blame?.co_blamed ?? [])].map((b) => b.step_id)),
    symptoms: new Set((blame?.symptoms ?? []).map((s) => s.step_id)),
    lineage: new Set(blame?.lineage_path ?? []),
  };
}

/** Below this a scorer's verdict reads as "probably wrong". */
export const WEAK_SCORE = 0.5;

/** How a step is coloured: blame first, then its own health. */
export function stepLook(step: Step, index: BlameIndex): StepLook {
  if (index.blamed.has(step.step_id)) return 'blamed';
  if (index.coBlamed.has(step.step_id)) return 'co-blamed';
  if (index.symptoms.has(step.step_id)) return 'symptom';
  if (step.status === 'error') return 'error';
  if (step.status === 'running') return 'running';
  const score = index.health.get(step.step_id)?.score ?? null;
  if (score === null) return 'unscored';
  return score < WEAK_SCORE ? 'weak' : 'healthy';
}
