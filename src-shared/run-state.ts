/**
 * One answer to "did this run fail?" for every place that shows it: the run
 * header, the runs list, the step list, graph and panels, the charts and the
 * reports. Before this module each view derived its own word from different
 * fields, and an imported run could read HEALTHY in the header, FAILED in the
 * list and "Failed: unrecovered-error" in the blame panel at the same time.
 *
 * The rule, in order:
 *   1. a run still being written is `running`;
 *   2. what the user asserted ("Mark as failed…") wins;
 *   3. then the failure detector's answer (blame's `detection`), whole result
 *      or the copy the runs list carries;
 *   4. without it, a run-level error or a failing verdict says `failed`;
 *      anything else is `unknown` until the detector has looked (never
 *      `healthy` by default);
 *   5. a `healthy` answer is downgraded to `unknown` when the import lost
 *      part of the run (an error-level import problem) or recorded no step:
 *      the detector only saw what was imported.
 */
import type { BlameResult } from './analysis';
import type { RunSummary } from './model';

export type RunStateName = 'running' | 'failed' | 'healthy' | 'unknown';

export interface RunState {
  state: RunStateName;
  /** Who said so: the user, the failure detector, the run's own status/verdict, the import, or nobody yet. */
  basis: 'asserted' | 'detected' | 'recorded' | 'import' | 'pending';
  /** The word on the pill. */
  label: string;
  /** One sentence for a tooltip or a report line. */
  reason: string;
}

type RunFacts = Pick<RunSummary, 'status' | 'verdict' | 'steps'> &
  Partial<Pick<RunSummary, 'healthy' | 'detection' | 'asserted' | 'import_problems'>> & {
    error?: { type: string; message: string } | null;
  };

type BlameFacts = Pick<BlameResult, 'healthy'> & Partial<Pick<BlameResult, 'detection' | 'asserted' | 'failure'>>;

const LABELS: Record<RunStateName, string> = { running: 'running', failed: 'failed', healthy: 'healthy', unknown: 'unknown' };

function make(state: RunStateName, basis: RunState['basis'], reason: string, label = LABELS[state]): RunState {
  return { state, basis, label, reason };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The detector's (or the user's) answer, from the whole blame result when at hand, else from the list's copy. */
function judged(run: RunFacts, blame: BlameFacts | null | undefined): RunState | null {
  if (blame) {
    if (blame.asserted) return make('failed', 'asserted', 'You marked this run as failed.');
    const status = blame.detection?.status ?? (blame.healthy ? 'healthy' : 'failed');
    const why = blame.detection?.description ?? blame.failure?.description ?? '';
    if (status === 'failed') return make('failed', 'detected', why || 'The failure detector found this run failed.');
    if (status === 'unknown') return make('unknown', 'detected', why || 'Some signs of failure, too weak to call.', 'possibly failed');
    return make('healthy', 'detected', why || 'The failure detector found no sign of failure.');
  }
  if (run.asserted) return make('failed', 'asserted', 'You marked this run as failed.');
  const status = run.detection ?? (run.healthy === false ? 'failed' : run.healthy === true ? 'healthy' : null);
  if (status === 'failed') return make('failed', 'detected', 'The failure detector found this run failed.');
  if (status === 'unknown') return make('unknown', 'detected', 'Some signs of failure, too weak to call.', 'possibly failed');
  if (status === 'healthy') return make('healthy', 'detected', 'The failure detector found no sign of failure.');
  return null;
}

export function runState(run: RunFacts, blame?: BlameFacts | null): RunState {
  if (run.status === 'running') return make('running', 'recorded', 'No run-end yet: the trace may still grow.');
  const state =
    judged(run, blame) ??
    (run.status === 'error'
      ? make('failed', 'recorded', run.error ? `The run ended with ${run.error.type}: ${run.error.message}` : 'The run ended with an error.')
      : run.verdict?.pass === false
        ? make('failed', 'recorded', `The run's own check failed${run.verdict.detail ? `: ${run.verdict.detail}` : '.'}`)
        : make('unknown', 'pending', run.status === 'incomplete' ? 'The run never ended and has not been checked yet.' : 'Not checked for failure yet.', 'not checked'));
  if (state.state !== 'healthy') return state;
  const lost = run.import_problems?.errors ?? 0;
  if (lost > 0) {
    return make('unknown', 'import', `Its trace file had ${plural(lost, 'import error')}: steps may be missing, so "healthy" only speaks for what was imported.`, 'import errors');
  }
  if (run.steps === 0) return make('unknown', 'import', 'No step was recorded, so there is nothing to judge.', 'no steps');
  return state;
}

/** How one step figures in blame; null when it plays no part. */
export type StepRole = 'blamed' | 'suspect' | 'co-blamed' | 'symptom' | 'recovered';

/**
 * Each step's part in the blame result, the same in the list, graph, panel
 * and reports: the top finding is `blamed`; the engine's `co_blamed` (a near
 * tie) is `co-blamed`; lower-ranked findings are `suspect`s, never drawn as
 * co-blamed, since the engine did not call them a tie.
 */
export function stepRoles(blame: Pick<BlameResult, 'blamed' | 'co_blamed' | 'symptoms'> & Partial<Pick<BlameResult, 'recovered'>> | null | undefined): Map<string, StepRole> {
  const roles = new Map<string, StepRole>();
  if (!blame) return roles;
  for (const r of blame.recovered ?? []) roles.set(r.step_id, 'recovered');
  for (const s of blame.symptoms) roles.set(s.step_id, 'symptom');
  for (const b of blame.blamed.slice(1)) roles.set(b.step_id, 'suspect');
  for (const c of blame.co_blamed) roles.set(c.step_id, 'co-blamed');
  if (blame.blamed[0]) roles.set(blame.blamed[0].step_id, 'blamed');
  return roles;
}
