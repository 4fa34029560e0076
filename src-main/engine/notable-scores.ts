/**
 * A blame result with only its notable step scores, for views of runs read in
 * parts (src-shared/run-skeleton.ts). A 100,000-step run's step_scores are
 * ~18 MB of JSON, nearly all of it "status.ok: ended without error"; the
 * steps whose every check passed are sent as ids only.
 */
import type { BlameResult } from '../../src-shared/analysis';

export function withNotableStepScores(result: BlameResult): BlameResult {
  const notable: BlameResult['step_scores'] = [];
  const passed: string[] = [];
  for (const s of result.step_scores) {
    if (s.score === 1 && s.checks.length > 0 && s.checks.every((c) => c.value === 1)) passed.push(s.step_id);
    else if (s.score !== null || s.checks.length > 0) notable.push(s);
  }
  return { ...result, step_scores: notable, step_scores_passed: passed };
}
