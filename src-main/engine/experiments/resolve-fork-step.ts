/**
 * Which step of the source run the user means by `--at STEP`: a replay key
 * (exact), a step id, or a step name that occurs once. A repeated name is
 * refused with the keys to choose from, never guessed.
 */
import type { RunDetail, Step } from '../../../src-shared/model';
import { EngineError } from '../../../src-shared/result';

export function resolveForkStep(detail: RunDetail, at: string): Step {
  const byKey = detail.steps.find((s) => s.replay_key === at);
  if (byKey) return byKey;
  const byId = detail.steps.find((s) => s.step_id === at);
  if (byId) return byId;
  const byName = detail.steps.filter((s) => s.name === at);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) {
    const keys = byName.slice(0, 8).map((s) => s.replay_key);
    throw new EngineError('ambiguous', `step name "${at}" occurs ${byName.length} times in run ${detail.run.run_id}; give its replay key: ${keys.join(', ')}${byName.length > 8 ? ', …' : ''}`);
  }
  throw new EngineError('not_found', `run ${detail.run.run_id} has no step "${at}" (give a replay key like "planner#0", a step id, or a unique step name)`);
}

/** Steps inside `step` (its replay key is their prefix). */
export function isDescendant(s: Step, of: Step): boolean {
  return s.replay_key.startsWith(of.replay_key + '/');
}
