/**
 * From trials to the numbers a user reads: per arm, passes over judged trials
 * with a 95% interval; between arms, Fisher's exact p. Crashes and timeouts
 * are judged failures; diverged trials are in neither denominator (they did
 * not test the edit) and are reported beside the arms.
 */
import type { Arm, ArmSummary, ExperimentDetail, ExperimentSummary } from '../../../src-shared/experiments';
import type { Db } from '../store/open-database';
import { listExperimentRecords, readExperiment, readTrials, toTrialSummary, type ExperimentRecord, type ListExperimentsQuery, type TrialRecord } from '../store/experiments';
import { clopperPearsonInterval, fisherExactTwoSided, wilsonInterval } from './statistics';

/** Below this many judged trials per arm a result is directional only (said in the UI and reports). */
const SMALL_N = 10;

const JUDGED = new Set(['pass', 'fail', 'crashed', 'timeout']);

function summarizeArm(trials: TrialRecord[], arm: Arm, withClopperPearson = false): ArmSummary {
  const mine = trials.filter((t) => t.arm === arm);
  const judged = mine.filter((t) => JUDGED.has(t.outcome));
  const passed = judged.filter((t) => t.outcome === 'pass').length;
  const count = (o: string) => mine.filter((t) => t.outcome === o).length;
  const ran = mine.filter((t) => t.started_at !== null);
  const summary: ArmSummary = {
    passed,
    trials: judged.length,
    rate: judged.length ? passed / judged.length : null,
    wilson: wilsonInterval(passed, judged.length),
    failed: count('fail'),
    crashed: count('crashed'),
    timeouts: count('timeout'),
    diverged: count('diverged'),
    unfinished: mine.length - judged.length - count('diverged'),
    tokens: sum(ran, (t) => t.tokens),
    cost_usd: sum(ran, (t) => t.cost_usd),
    duration_ms: sum(ran, (t) => t.duration_ms ?? 0),
    calls: sum(ran, (t) => t.calls),
    edit_not_applied: mine.filter((t) => t.edit_applied === false).length,
  };
  if (withClopperPearson) summary.clopper_pearson = clopperPearsonInterval(passed, judged.length);
  return summary;
}

function summarizeExperiment(e: ExperimentRecord, trials: TrialRecord[]): ExperimentSummary {
  const cp = e.options.clopper_pearson === true;
  const treatment = summarizeArm(trials, 'treatment', cp);
  const control = summarizeArm(trials, 'control', cp);
  const p = fisherExactTwoSided(treatment.passed, treatment.trials - treatment.passed, control.passed, control.trials - control.passed);
  return {
    experiment_id: e.experiment_id,
    run_id: e.source_run_id,
    pipeline: e.pipeline,
    at: e.fork_step_name,
    fork_step_key: e.fork_step_key,
    label: e.label,
    status: e.status,
    stop_reason: e.stop_reason,
    edit: e.edit,
    oracle: e.oracle,
    n: e.n_per_arm,
    parallel: e.parallel,
    timeout_s: e.timeout_ms / 1000,
    control,
    treatment,
    p_value: p,
    effect: treatment.rate !== null && control.rate !== null ? treatment.rate - control.rate : null,
    diverged: treatment.diverged + control.diverged,
    crashed: treatment.crashed + control.crashed,
    timeouts: treatment.timeouts + control.timeouts,
    saved: { calls: sum(trials, (t) => t.saved_calls), tokens: sum(trials, (t) => t.saved_tokens) },
    small_n: Math.min(treatment.trials, control.trials) < SMALL_N,
    estimate: e.estimate,
    created_at: e.created_at,
    ended_at: e.ended_at,
    group_id: e.group_id,
    edit_not_applied: treatment.edit_not_applied + control.edit_not_applied,
    warnings: experimentWarnings(e, treatment),
  };
}

/**
 * Said loudly because the numbers alone mislead: 0/5 vs 0/5 after an
 * instructions edit the step never read reads as "the change does not help",
 * when the change was never tried.
 */
function experimentWarnings(e: ExperimentRecord, treatment: ArmSummary): string[] {
  const warnings: string[] = [];
  const ran = treatment.trials + treatment.diverged;
  if (treatment.edit_not_applied > 0) {
    const what =
      e.edit.kind === 'instructions'
        ? `step "${e.fork_step_name}" never read its instructions (it does not call instructions() / the SDK's instructions hook), so the new instructions were never used`
        : `the fork step "${e.fork_step_name}" never ran, so the edited output was never used`;
    const share = treatment.edit_not_applied >= ran ? 'every treatment trial' : `${treatment.edit_not_applied} of ${ran} treatment trials`;
    warnings.push(`Edit not applied in ${share}: ${what}. Those trials tested nothing; the result says nothing about the edit.`);
  }
  return warnings;
}

function sum<T>(items: T[], f: (t: T) => number): number {
  let s = 0;
  for (const i of items) s += f(i);
  return s;
}

export function getExperimentSummary(db: Db, experimentId: string): ExperimentSummary {
  const e = readExperiment(db, experimentId);
  return summarizeExperiment(e, readTrials(db, e.experiment_id));
}

export function getExperimentDetail(db: Db, experimentId: string): ExperimentDetail {
  const e = readExperiment(db, experimentId);
  const trials = readTrials(db, e.experiment_id);
  return { ...summarizeExperiment(e, trials), trials: trials.map(toTrialSummary) };
}

/** Newest first. */
export function listExperiments(db: Db, q: ListExperimentsQuery = {}): ExperimentSummary[] {
  return listExperimentRecords(db, q).map((r) => summarizeExperiment(r.experiment, r.trials));
}
