/**
 * The CI gate (`tb gate --fail-on-blame X`): fail when the run failed (the
 * user marked it failed, a failing verdict, an error status, or it never
 * finished) or when the top blame score exceeds X.
 */
import type { BlameResult } from '../../../src-shared/analysis';
import type { Run } from '../../../src-shared/model';

export function gateDecision(blame: BlameResult, run: Run, failOnBlame: number): { fail: boolean; reason: string } {
  const top = blame.blamed[0];
  const blamedText = top ? `step "${top.name}" (${top.rule}, blame ${top.score.toFixed(2)}): ${top.reason}` : '';
  if (blame.asserted) {
    return { fail: true, reason: `run ${run.run_id} was marked as failed by the user${blame.assertion?.expected ? ` (expected: ${blame.assertion.expected})` : ''}${top ? `; blamed ${blamedText}` : ''}` };
  }
  if (run.verdict && !run.verdict.pass) {
    return { fail: true, reason: `run ${run.run_id} failed its verdict${run.verdict.detail ? ` (${run.verdict.detail})` : ''}${top ? `; blamed ${blamedText}` : ''}` };
  }
  if (run.status === 'error') return { fail: true, reason: `run ${run.run_id} ended in error${top ? `; blamed ${blamedText}` : ''}` };
  if (run.status === 'incomplete') return { fail: true, reason: `run ${run.run_id} never finished${top ? `; blamed ${blamedText}` : ''}` };
  if (run.status === 'running') return { fail: true, reason: `run ${run.run_id} is still running; gate on a finished run` };
  const score = top?.score ?? 0;
  if (top && score > failOnBlame) return { fail: true, reason: `blame score ${score.toFixed(2)} exceeds ${failOnBlame}: ${blamedText}` };
  if (blame.healthy) return { fail: false, reason: `run ${run.run_id} is healthy (blame score 0.00 ≤ ${failOnBlame})` };
  return { fail: false, reason: `blame score ${score.toFixed(2)} ≤ ${failOnBlame}${top ? ` (top: step "${top.name}")` : ''}` };
}
