/**
 * Fork experiments (DESIGN.md §4, §7; docs/experiments.md): what a client
 * asks for and what it gets back. `tb fork --json`, `tb experiments --json`
 * and the UI all show these shapes, so fields may be added but never renamed.
 */
import { z } from 'zod';
import type { Json, StepType } from './trace-format';
import type { ForkEdit } from './replay-plan';

/** Edits and oracle values above this size are refused (UTF-8 bytes of their JSON). */
export const MAX_EDIT_BYTES = 1_000_000;

export const forkEditSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('output'), output: z.json() }).strict(),
  z.object({ kind: z.literal('instructions'), instructions: z.string().min(1).max(MAX_EDIT_BYTES) }).strict(),
]);

/** How a trial is judged pass or fail. */
export type OracleSpec =
  /** The verdict the pipeline recorded through the SDK (default); no verdict = fail. */
  | { kind: 'verdict' }
  /** A shell command given the run's final output as JSON on stdin; exit 0 = pass. */
  | { kind: 'command'; command: string }
  /** The final output equals this JSON value (a string output is compared to a string). */
  | { kind: 'equals'; value: Json }
  /** The final output's text (a string as is, anything else as JSON) contains this text. */
  | { kind: 'contains'; text: string }
  /** The final output's text matches this regular expression. */
  | { kind: 'regex'; pattern: string; flags?: string }
  /** The value at this path of the final output (`a.b[0].c`, optional leading `$.`) equals this JSON value. */
  | { kind: 'json-path'; path: string; value: Json };

export const oracleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('verdict') }).strict(),
  z.object({ kind: z.literal('command'), command: z.string().min(1).max(10_000) }).strict(),
  z.object({ kind: z.literal('equals'), value: z.json() }).strict(),
  z.object({ kind: z.literal('contains'), text: z.string().min(1).max(MAX_EDIT_BYTES) }).strict(),
  z.object({ kind: z.literal('regex'), pattern: z.string().min(1).max(10_000), flags: z.string().regex(/^[imsu]*$/).optional() }).strict(),
  z.object({ kind: z.literal('json-path'), path: z.string().min(1).max(1000), value: z.json() }).strict(),
]);

export type ExperimentStatus = 'running' | 'done' | 'cancelled' | 'interrupted' | 'error';

/**
 * pass / fail: judged by the oracle. crashed: the process ended without a
 * completed run, or the pipeline threw. timeout: killed at the per-trial
 * limit. crashed and timeout count as failures. diverged: the live run left
 * the recording before the fork, so it did not test the edit and counts in
 * neither arm. skipped: never started (budget reached). cancelled /
 * interrupted: stopped by the user / by the runner's own exit.
 */
export type TrialOutcome = 'pending' | 'running' | 'pass' | 'fail' | 'crashed' | 'timeout' | 'diverged' | 'skipped' | 'cancelled' | 'interrupted';

export type Arm = 'treatment' | 'control';

export interface ArmSummary {
  passed: number;
  /** Judged trials: passes, fails, crashes and timeouts (diverged trials are not counted). */
  trials: number;
  /** passed / trials; null with no trials. */
  rate: number | null;
  /** Wilson 95% interval of the rate ([0, 1] with no trials). */
  wilson: [number, number];
  /** Clopper–Pearson 95% interval, when the experiment asked for it. */
  clopper_pearson?: [number, number];
  failed: number;
  crashed: number;
  timeouts: number;
  diverged: number;
  /** Not judged: pending, running, skipped, cancelled or interrupted. */
  unfinished: number;
  /** Live tokens (steps that really ran) over the arm's trials. */
  tokens: number;
  cost_usd: number;
  /** Summed wall time of the arm's trial processes. */
  duration_ms: number;
  /** Live model and tool calls over the arm's trials. */
  calls: number;
  /** Trials whose pipeline never consumed the fork edit (see TrialSummary.edit_applied). */
  edit_not_applied: number;
}

export interface ForkStepRef {
  step_id: string;
  key: string;
  name: string;
  type: StepType;
  index: number;
}

export interface ExperimentEstimate {
  fork_step: ForkStepRef;
  edit_kind: ForkEdit['kind'];
  /** Recorded steps that run live again in every trial (after the fork, plus the fork step for an instructions edit). */
  downstream_steps: number;
  /** Recorded steps before the fork, replayed from the recording in every trial. */
  replayed_steps: number;
  trials: number;
  per_trial: { calls: number; tokens: number; cost_usd: number; duration_ms: number };
  /** For all trials (steps after the fork × 2N), from the recorded usage. */
  total: { calls: number; tokens: number; cost_usd: number };
  /** What replaying the prefix saves over re-running it, for all trials. */
  saved: { calls: number; tokens: number; cost_usd: number };
  /** The command each trial runs, from the run's trace: it runs only once approved. */
  command: { argv: string[]; cwd: string | null; env: Record<string, string> };
  approval_needed: boolean;
  warnings: string[];
  /**
   * What the user approves: `shown` is the command exactly as displayed (escaped,
   * one line); `sha` binds an approval to that text and the run's content now
   * (pass it back as `approvedCommand`); `foreign` when the run was imported
   * from a file the local SDK did not write. Absent in estimates stored before issue 12.
   */
  approval?: { shown: string; sha: string; foreign: boolean };
  /** The environment names a trial receives (values are never listed). */
  trial_env?: string[];
}

export interface ExperimentSummary {
  experiment_id: string;
  /** The source run, never modified. */
  run_id: string;
  pipeline: string;
  /** The fork step's name, and its replay key. */
  at: string;
  fork_step_key: string;
  label: string | null;
  status: ExperimentStatus;
  stop_reason: string | null;
  edit: ForkEdit;
  oracle: OracleSpec;
  n: number;
  parallel: number;
  timeout_s: number;
  control: ArmSummary;
  treatment: ArmSummary;
  /** Fisher's exact test, two-sided, treatment vs control. */
  p_value: number;
  /** treatment rate − control rate; null until both arms have a judged trial. */
  effect: number | null;
  /** Trials that diverged before the fork (both arms), excluded from the rates. */
  diverged: number;
  crashed: number;
  timeouts: number;
  /** Calls and tokens the replayed prefix saved, over the trials that ran. */
  saved: { calls: number; tokens: number };
  /** True while an arm has fewer than 10 judged trials: the result is directional, not conclusive. */
  small_n: boolean;
  estimate: ExperimentEstimate | null;
  created_at: number;
  ended_at: number | null;
  /** Set when this experiment is one candidate of a blame confirmation. */
  group_id: string | null;
  /** Trials (both arms) whose pipeline never consumed the edit. */
  edit_not_applied: number;
  /** Problems that make the result mean less than its numbers say, in plain words (e.g. the edit was never applied). */
  warnings: string[];
}

export interface TrialSummary {
  arm: Arm;
  trial: number;
  /** The forked run this trial wrote (a run like any other). */
  run_id: string;
  outcome: TrialOutcome;
  detail: string | null;
  started_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  tokens: number;
  cost_usd: number;
  calls: number;
  /** Steps the SDK replayed from the recording (fork step excluded). */
  replayed_steps: number;
  exit_code: number | null;
  /** The trial process's full output (stdout and stderr), kept beside the experiment. */
  log_file: string | null;
  /** The last lines of stderr of a trial that crashed or wrote no run (null otherwise). */
  stderr_tail: string | null;
  /**
   * Did the pipeline consume the fork edit? false: the fork step never ran, or (an
   * instructions edit) it never read its instructions, so this trial tested nothing.
   * null: not known (an SDK that does not report it, or no run was written).
   */
  edit_applied: boolean | null;
}

export interface ExperimentDetail extends ExperimentSummary {
  trials: TrialSummary[];
}

export interface ExperimentProgress {
  experiment_id: string;
  status: ExperimentStatus;
  /** Trials finished (any outcome) out of total. */
  done: number;
  total: number;
  running: number;
  control: { passed: number; trials: number };
  treatment: { passed: number; trials: number };
  /** The trial that just changed, if any. */
  trial?: TrialSummary;
}

export interface BlameCandidateResult {
  step_id: string;
  name: string;
  key: string;
  /** The step's start order in the run. */
  index: number;
  /** Position in the blame ranking (0 = top); null for a candidate the user named that blame did not. */
  blame_rank: number | null;
  experiment_id: string | null;
  /** treatment − control success rate when the step is given the passing run's output. */
  effect: number | null;
  p_value: number | null;
  /** Benjamini–Hochberg across the candidates tested. */
  p_adjusted: number | null;
  /** effect > 0 and p_adjusted < 0.05. */
  confirmed: boolean;
  /** Why it was not tested, when it was not. */
  skipped: string | null;
}

export interface BlameConfirmation {
  run_id: string;
  /** The passing run whose outputs were transplanted. */
  reference_run_id: string;
  /** The experiments of this confirmation carry it as their group_id. */
  group_id: string;
  /** Ranked by measured effect, largest first (ties: the earlier step first); untested candidates last. */
  candidates: BlameCandidateResult[];
  /**
   * The earliest confirmed candidate. Transplanting any step on the path to
   * the output can fix a run; the earliest one that does is where the fault
   * enters, the later ones only carry it.
   */
  root_cause_step_id: string | null;
  /** About a reference the user named (another input, foreign, no passing verdict). Absent before issue 12. */
  warnings?: string[];
}
