import type { BlameResult, StepHealth } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { stepRoles, type StepRole } from '../../../src-shared/run-state';

export type StepLook = 'blamed' | 'co-blamed' | 'symptom' | 'error' | 'weak' | 'healthy' | 'unscored' | 'running';

export interface BlameIndex {
  health: Map<string, StepHealth>;
  blamed: Set<string>;
  coBlamed: Set<string>;
  symptoms: Set<string>;
  lineage: Set<string>;
}

/** Blamed, co-blamed and symptom as in every other view (src-shared/run-state.ts): co-blamed only where the engine's co_blamed says so. */
export function indexBlame(blame: BlameResult | undefined): BlameIndex {
  const roles = [...stepRoles(blame)];
  const having = (role: StepRole) => new Set(roles.filter(([, r]) => r === role).map(([id]) => id));
  return {
    health: healthById(blame),
    blamed: having('blamed'),
    coBlamed: having('co-blamed'),
    symptoms: having('symptom'),
    lineage: new Set(blame?.lineage_path ?? []),
  };
}

/** The health of every step a notable-only blame listed by id: one shared value, 100,000 steps make no objects. */
const PASSED: StepHealth = Object.freeze({ step_id: '', name: '', type: 'generic', index: -1, score: 1, checks: [] });

/**
 * Each scored step's health. Steps a notable-only blame listed by id (every check passed) get score 1 and
 * no itemised checks; the step panel says their checks passed without listing them.
 */
function healthById(blame: BlameResult | undefined): Map<string, StepHealth> {
  const health = new Map<string, StepHealth>();
  for (const id of blame?.step_scores_passed ?? []) health.set(id, PASSED);
  for (const h of blame?.step_scores ?? []) health.set(h.step_id, h);
  return health;
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
