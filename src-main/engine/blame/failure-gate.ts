/**
 * The abstention gate: blame speaks only about failed runs. A run failed when
 * the user's oracle says so (a passing verdict overrides every heuristic), the
 * run itself ended in error or stopped mid-step, a score the user recorded on
 * the run is below the threshold, a step error was not recovered from, or a
 * hard check (refusal, truncation, error payload, ...) failed on a step whose
 * output reached the final output.
 */
import type { RunDetail } from '../../../src-shared/model';
import type { StepAssessment } from '../scoring/score-run';
import type { Settings } from '../scoring/settings';
import { isFailed, type Recovery } from './recovery';
import type { RunGraph } from './run-graph';
import { jsonText } from '../scoring/json-text';

export interface Failure {
  kind: 'asserted' | 'verdict' | 'run-error' | 'incomplete' | 'user-score' | 'unrecovered-error' | 'bad-output';
  description: string;
}

export function failureBeforeLineage(detail: RunDetail, g: RunGraph, assess: StepAssessment[], recovered: Map<number, Recovery>, settings: Settings): Failure | 'needs-lineage' | null {
  const run = detail.run;
  if (run.verdict) {
    if (run.verdict.pass) return null;
    return { kind: 'verdict', description: `the oracle failed the run${run.verdict.detail ? `: ${run.verdict.detail}` : ''}` };
  }
  if (run.status === 'error') {
    const e = run.error;
    return { kind: 'run-error', description: `the run ended in error${e ? `: ${e.type ? `${e.type}: ` : ''}${e.message}` : ''}` };
  }
  if (run.status === 'incomplete' && g.steps.some((s, i) => g.live[i] && s.status === 'running')) {
    return { kind: 'incomplete', description: 'the run stopped while steps were still running' };
  }
  const low = (run.user_scores ?? []).find((s) => s.value < settings.scoring.unhealthy_below);
  if (low) return { kind: 'user-score', description: `the user scored the run "${low.name}" ${low.value}${low.explanation ? ` (${low.explanation})` : ''}` };
  let hard = false;
  for (let p = 0; p < assess.length; p++) {
    if (!g.live[p] || recovered.has(p) || !isFailed(assess[p], settings)) continue;
    const s = g.steps[p];
    if (s.status === 'error') {
      const msg = s.error ? `${s.error.type ? `${s.error.type}: ` : ''}${s.error.message}` : 'an error';
      return { kind: 'unrecovered-error', description: `step "${s.name}" failed with ${msg.slice(0, 200)} and nothing recovered from it` };
    }
    hard = true;
  }
  return hard ? 'needs-lineage' : null;
}

export function failureFromSlice(g: RunGraph, assess: StepAssessment[], recovered: Map<number, Recovery>, settings: Settings, slice: Set<number>): Failure | null {
  for (const p of [...slice].sort((a, b) => b - a)) {
    if (!g.live[p] || recovered.has(p) || !isFailed(assess[p], settings)) continue;
    const worst = assess[p].checks.filter((c) => c.hard).sort((a, b) => a.value - b.value)[0];
    return {
      kind: 'bad-output',
      description: `the final output rests on step "${g.steps[p].name}", which ${worst?.explanation ?? 'failed a check'}`,
    };
  }
  return null;
}

export function finalOutputText(detail: RunDetail): string {
  return jsonText(detail.run.output);
}
