/**
 * The fork-experiment runner (DESIGN.md §4, docs/experiments.md). For each of
 * N control and N treatment trials it writes a replay plan, starts the
 * pipeline's recorded entry command with TRACEBACK_REPLAY_PLAN pointing at it,
 * imports the forked run the SDK wrote to the inbox, and judges it. Trials
 * run in a pool, arms interleaved (control 1, treatment 1, control 2, …) so
 * that a budget stop or a cancel leaves the arms balanced and drift over time
 * hits both alike. The source run is only read, never written.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { EntryCommand } from '../../../src-shared/trace-format';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import { buildReplayPlan } from './build-replay-plan';
import type { Arm, ExperimentEstimate, ExperimentProgress, ExperimentStatus, ExperimentSummary, OracleSpec } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';
import type { HomePaths } from '../home';
import type { Db } from '../store/open-database';
import { getRunDetail } from '../store/read-runs';
import { importFile } from '../ingest/import-file';
import { approveCommand, checkApproval, commandApproval } from './command-approvals';
import { estimateExperiment } from './estimate-experiment';
import {
  closeOpenTrials,
  finishExperiment,
  insertExperiment,
  toTrialSummary,
  updateTrial,
  type ExperimentRecord,
  type TrialRecord,
} from '../store/experiments';
import { RUNNER_TOKEN } from './recover-experiments';
import { getExperimentSummary } from './summarize-experiment';
import { judgeRun, validateOracle } from './judge-trial';
import { resolveForkStep } from './resolve-fork-step';
import { runProcess } from './run-process';
import { trialUsage } from './trial-usage';
import { validateEdit } from './validate-edit';
import { checkNames, DEFAULT_TRIAL_SETTINGS, readTrialSettings, trialEnv, trialEnvNames, type TrialSettings } from './trial-environment';
import { sandboxArgv, sandboxKind } from './trial-sandbox';
import { makeWorkingCopy } from './working-copy';

const DEFAULT_TIMEOUT_MS = 300_000;
/** Enough of a Python or Node traceback to show the exception and where it was raised. */
const STDERR_TAIL_LINES = 12;

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join('\n').slice(-2000);
}
const MAX_TRIALS_PER_ARM = 500;

export interface ExperimentHost {
  db: Db;
  paths: HomePaths;
  /** Forwarded by the engine as the 'experiment-progress' API event. */
  onProgress?: (p: ExperimentProgress) => void;
  /** Forked runs were imported (the engine refreshes analysis and pushes 'data-changed'). */
  onRunsChanged?: (runIds: string[]) => void;
}

export interface ExperimentRequest {
  source: RunDetail;
  /** Replay key, step id, or unique step name. */
  at: string;
  edit: ForkEdit;
  /** Trials per arm. */
  n: number;
  /** Trials at once (default: the machine's available parallelism). */
  parallel?: number;
  timeoutMs?: number;
  oracle?: OracleSpec;
  /** Refuse when 2N exceeds this. */
  maxTrials?: number;
  /** Start no new trial once the live tokens of finished trials reach this. */
  tokenCeiling?: number;
  label?: string | null;
  /** The user saw the command and approves it (remembered for this pipeline and command). */
  approve?: boolean;
  /** The approval hash shown with the command (estimate.approval.sha, or a 16+ digit prefix). */
  approvedSha?: string;
  /** The approval hash this engine last showed for the source run (set by the experiment service). */
  lastShownSha?: string;
  /** Extra environment names the trials receive (`--env NAME`). */
  env?: string[];
  clopperPearson?: boolean;
  /** Blame confirmation: the experiments of one confirmation share it. */
  groupId?: string | null;
  sideEffects?: 'require-mock' | 'allow-live';
  allowModelChange?: boolean;
}

export interface PreparedExperiment {
  fork: Step;
  edit: ForkEdit;
  entry: EntryCommand;
  estimate: ExperimentEstimate;
}

export interface RunningExperiment {
  experimentId: string;
  done: Promise<ExperimentSummary>;
  cancel(): void;
}

/** Every check that needs no process: the fork step, the edit, the command, the numbers. Also the estimate. */
export function prepareExperiment(
  db: Db,
  req: Pick<ExperimentRequest, 'source' | 'at' | 'edit' | 'n' | 'env'>,
  paths?: HomePaths,
): PreparedExperiment & { trialSettings: TrialSettings; extraEnv: string[] } {
  const run = req.source.run;
  if (!Number.isInteger(req.n) || req.n < 1 || req.n > MAX_TRIALS_PER_ARM) {
    throw new EngineError('bad_request', `N (trials per arm) must be a whole number from 1 to ${MAX_TRIALS_PER_ARM} (got ${req.n})`);
  }
  const entry = run.entry;
  if (!entry || !Array.isArray(entry.command) || entry.command.length === 0 || typeof entry.command[0] !== 'string' || entry.command[0] === '') {
    const origin = run.source_format === 'native' ? 'its trace records no entry command' : `it was imported from a ${run.source_format} file`;
    throw new EngineError('unsupported', `run ${run.run_id} cannot be forked: ${origin}, so Traceback does not know how to re-run it (view only). Record it with the Traceback SDK to fork it.`);
  }
  if (entry.cwd && !fs.existsSync(entry.cwd)) {
    throw new EngineError('bad_request', `run ${run.run_id} was recorded in ${entry.cwd}, which does not exist on this machine; its entry command cannot be re-run here`);
  }
  const fork = resolveForkStep(req.source, req.at);
  const edit = validateEdit(req.edit);
  const approval = commandApproval(db, req.source, entry);
  const estimate = estimateExperiment(req.source, fork, edit, req.n, entry, !approval.approved_before);
  const trialSettings = paths ? readTrialSettings(paths) : DEFAULT_TRIAL_SETTINGS;
  const extraEnv = [...trialSettings.env, ...checkNames(req.env ?? [], '--env')];
  estimate.approval = { shown: approval.shown, sha: approval.sha, foreign: approval.foreign };
  estimate.trial_env = trialEnvNames(entry, extraEnv);
  if (approval.foreign) {
    estimate.warnings.push(`run ${run.run_id} was imported from ${run.source_file ?? 'a file'}, not written by the local SDK: its recorded outputs become live input to your pipeline; fork it only if you trust that file`);
  }
  if (sandboxKind(trialSettings.sandbox) === 'none') {
    estimate.warnings.push(
      'no OS sandbox for trials (bubblewrap is not installed or cannot make a sandbox here, or this is not Linux): each trial runs as you, with a minimal environment and time, memory and output caps only',
    );
  }
  return { fork, edit, entry, estimate, trialSettings, extraEnv };
}

function newExperimentId(): string {
  return `exp-${randomBytes(6).toString('hex')}`;
}

/** Parallelism, per-trial timeout, trial budget, oracle and token ceiling of a request, checked (bad_request). */
function runLimits(req: ExperimentRequest): { parallel: number; timeoutMs: number; oracle: OracleSpec } {
  const parallel = req.parallel ?? os.availableParallelism();
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 64) throw new EngineError('bad_request', `parallelism must be a whole number from 1 to 64 (got ${parallel})`);
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs >= 100 && timeoutMs <= 24 * 3600_000)) throw new EngineError('bad_request', `the per-trial timeout must be from 0.1 s to 24 h (got ${timeoutMs / 1000} s)`);
  if (req.maxTrials !== undefined && 2 * req.n > req.maxTrials) {
    throw new EngineError('bad_request', `2 × N = ${2 * req.n} trials exceeds the budget of ${req.maxTrials} trials`);
  }
  const oracle: OracleSpec = validateOracle(req.oracle ?? { kind: 'verdict' });
  if (req.tokenCeiling !== undefined && !(req.tokenCeiling > 0)) throw new EngineError('bad_request', 'the token ceiling must be a positive number');
  return { parallel, timeoutMs, oracle };
}

/** N trials per arm, control before treatment in each pair, all pending. */
function pendingTrials(experimentId: string, n: number): TrialRecord[] {
  const trials: TrialRecord[] = [];
  for (let i = 1; i <= n; i++) {
    for (const arm of ['control', 'treatment'] as Arm[]) {
      trials.push({
        experiment_id: experimentId,
        arm,
        trial: i,
        // Trial numbers start at 1: a pipeline that seeds its noise by trial (the demo does) then never repeats the recording's own draw.
        run_id: `${experimentId}-${arm === 'control' ? 'c' : 't'}${i}`,
        outcome: 'pending',
        detail: null,
        started_at: null,
        ended_at: null,
        duration_ms: null,
        tokens: 0,
        cost_usd: 0,
        calls: 0,
        replayed_steps: 0,
        saved_calls: 0,
        saved_tokens: 0,
        exit_code: null,
        log_file: null,
        stderr_tail: null,
        edit_applied: null,
      });
    }
  }
  return trials;
}

/** The progress event for the trials as they stand. */
function progressOf(experimentId: string, trials: TrialRecord[], trial: TrialRecord | undefined, status: ExperimentStatus): ExperimentProgress {
  const judged = (arm: Arm) => trials.filter((t) => t.arm === arm && ['pass', 'fail', 'crashed', 'timeout'].includes(t.outcome));
  const p: ExperimentProgress = {
    experiment_id: experimentId,
    status,
    done: trials.filter((t) => t.outcome !== 'pending' && t.outcome !== 'running').length,
    total: trials.length,
    running: trials.filter((t) => t.outcome === 'running').length,
    control: { passed: judged('control').filter((t) => t.outcome === 'pass').length, trials: judged('control').length },
    treatment: { passed: judged('treatment').filter((t) => t.outcome === 'pass').length, trials: judged('treatment').length },
  };
  if (trial) p.trial = toTrialSummary(trial);
  return p;
}

/**
 * What a finished trial process means, first match wins: cancelled, timed out, over a cap, never started, no run
 * written, diverged, run never ended, pipeline threw; otherwise the oracle judges the forked run.
 */
async function trialOutcome(
  proc: Awaited<ReturnType<typeof runProcess>>,
  forked: RunDetail | null,
  trial: { runId: string; pipeline: string; timeoutMs: number; oracle: OracleSpec; logFile: string },
): Promise<{ outcome: TrialRecord['outcome']; detail: string }> {
  let outcome: TrialRecord['outcome'];
  let detail: string;
  const ended = forked && (forked.run.status === 'ok' || forked.run.status === 'error');
  // The tail is in the trial's stderr_tail; the detail names its last line and the log, so a one-line view still says where to look.
  const lastLine = proc.stderrTail.trim().split('\n').pop()?.trim() ?? '';
  const tail = `${lastLine ? `; stderr: ${lastLine.slice(0, 300)}` : ''}; full log: ${trial.logFile}`;
  if (proc.cancelled) {
    outcome = 'cancelled';
    detail = 'cancelled while running';
  } else if (proc.timedOut) {
    outcome = 'timeout';
    detail = `killed after the per-trial timeout of ${trial.timeoutMs / 1000} s`;
  } else if (proc.overLimit) {
    outcome = 'crashed';
    detail = `killed: it ${proc.overLimit}`;
  } else if (proc.startError) {
    outcome = 'crashed';
    detail = `the command could not start: ${proc.startError}`;
  } else if (!forked) {
    outcome = 'crashed';
    detail = `the command exited ${proc.exitCode ?? proc.signal} without writing the forked run ${trial.runId}${tail}${proc.exitCode === 0 ? ` (does it record pipeline "${trial.pipeline}" with the Traceback SDK?)` : ''}`;
  } else if (forked.run.provenance?.diverged) {
    outcome = 'diverged';
    detail = forked.run.provenance?.divergence ?? 'the live run departed from the recording before the fork';
  } else if (!ended) {
    outcome = 'crashed';
    detail = `the process exited ${proc.exitCode ?? proc.signal} before the run ended${tail}`;
  } else if (forked.run.status === 'error') {
    outcome = 'crashed';
    const e = forked.run.error;
    detail = `the pipeline threw${e ? ` ${e.type}: ${e.message.slice(0, 300)}` : ''}; full log: ${trial.logFile}`;
  } else {
    const j = await judgeRun(forked.run, trial.oracle);
    outcome = j.pass ? 'pass' : 'fail';
    detail = j.detail;
  }
  return { outcome, detail };
}

/**
 * Validates, persists and starts an experiment; returns at once. Throws an
 * EngineError (nothing persisted, nothing run) when the request is bad or
 * the command still needs the user's approval.
 */
export function startExperiment(host: ExperimentHost, req: ExperimentRequest): RunningExperiment {
  const { db, paths } = host;
  const prepared = prepareExperiment(db, req, paths);
  const { fork, edit, entry, estimate, trialSettings, extraEnv } = prepared;
  const source = req.source.run;
  const { parallel, timeoutMs, oracle } = runLimits(req);
  const approval = commandApproval(db, req.source, entry);
  const freshApproval = checkApproval(approval, source.run_id, { approve: req.approve, approvedSha: req.approvedSha, lastShownSha: req.lastShownSha });
  // A foreign run's approval covers that run's content only: it is never remembered for the pipeline.
  if (freshApproval && !approval.foreign) approveCommand(db, source.pipeline, entry);
  const sandbox = sandboxKind(trialSettings.sandbox);

  const experimentId = newExperimentId();
  const dir = path.join(paths.experiments, experimentId);
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(paths.inbox, { recursive: true });
  const record: ExperimentRecord = {
    experiment_id: experimentId,
    source_run_id: source.run_id,
    pipeline: source.pipeline,
    fork_step_key: fork.replay_key,
    fork_step_name: fork.name,
    edit,
    oracle,
    n_per_arm: req.n,
    parallel,
    timeout_ms: timeoutMs,
    options: { runner_token: RUNNER_TOKEN, max_trials: req.maxTrials, token_ceiling: req.tokenCeiling, clopper_pearson: req.clopperPearson || undefined },
    label: req.label ?? null,
    group_id: req.groupId ?? null,
    status: 'running',
    stop_reason: null,
    estimate: { ...estimate, approval_needed: false },
    runner_pid: process.pid,
    created_at: Date.now(),
    ended_at: null,
  };
  const trials = pendingTrials(experimentId, req.n);
  insertExperiment(db, record, trials);

  const abort = new AbortController();
  let budgetStop: string | null = null;
  let tokensUsed = 0;

  const progress = (trial?: TrialRecord, status: ExperimentStatus = 'running') => {
    if (!host.onProgress) return;
    try {
      host.onProgress(progressOf(experimentId, trials, trial, status));
    } catch {
      // A listener's failure must not stop the experiment.
    }
  };

  const runTrial = async (t: TrialRecord): Promise<void> => {
    const planFile = path.join(dir, `${t.arm}-${t.trial}.plan.json`);
    const plan = buildReplayPlan(req.source, {
      experimentId,
      arm: t.arm,
      trial: t.trial,
      forkStepKey: fork.replay_key,
      edit,
      inbox: paths.inbox,
      runId: t.run_id,
      sideEffects: req.sideEffects,
      allowModelChange: req.allowModelChange,
      tags: req.label ? { experiment_label: req.label } : undefined,
    });
    fs.writeFileSync(planFile, JSON.stringify(plan));
    // A private temp folder per trial: TMPDIR, and (sandboxed) the only writable place besides cwd and the inbox.
    const tmpDir = path.join(dir, `${t.arm}-${t.trial}.tmp`);
    fs.mkdirSync(tmpDir, { recursive: true });
    const recordedCwd = entry.cwd ?? process.cwd();
    let cwd = recordedCwd;
    if (trialSettings.working_copy) {
      cwd = path.join(tmpDir, 'work');
      makeWorkingCopy(recordedCwd, cwd);
    }
    t.outcome = 'running';
    t.started_at = Date.now();
    updateTrial(db, t);
    progress(t);

    const boxed = sandboxArgv(entry.command, { home: paths.home, inbox: paths.inbox, planDir: dir, cwd, tmpDir, writable: trialSettings.writable }, sandbox);
    const logFile = path.join(dir, `${t.arm}-${t.trial}.log`);
    const proc = await runProcess({
      argv: boxed.argv,
      cwd,
      env: trialEnv({ entry, planFile, tmpDir, extraNames: extraEnv, sandboxed: boxed.kind === 'bwrap' }),
      timeoutMs,
      memoryCapBytes: trialSettings.memory_mb * 1e6,
      outputCapBytes: trialSettings.output_mb * 1e6,
      logFile,
      signal: abort.signal,
    });
    fs.rmSync(tmpDir, { recursive: true, force: true });
    t.ended_at = Date.now();
    t.duration_ms = Math.round(proc.durationMs);
    t.exit_code = proc.exitCode;
    t.log_file = logFile;

    const runFile = path.join(paths.inbox, `${t.run_id}.jsonl`);
    let forked: RunDetail | null = null;
    if (fs.existsSync(runFile)) {
      importFile(db, runFile, { final: true });
      try {
        forked = getRunDetail(db, t.run_id);
      } catch {
        forked = null;
      }
      if (forked) host.onRunsChanged?.([t.run_id]);
    }
    if (forked) {
      const usage = trialUsage(forked, fork.replay_key);
      Object.assign(t, usage);
      tokensUsed += usage.tokens;
    }

    const { outcome, detail } = await trialOutcome(proc, forked, { runId: t.run_id, pipeline: source.pipeline, timeoutMs, oracle, logFile });
    t.outcome = outcome;
    t.detail = detail;
    t.edit_applied = forked?.run.provenance?.edit_applied ?? null;
    if (outcome === 'crashed' || outcome === 'timeout') t.stderr_tail = lastLines(proc.stderrTail, STDERR_TAIL_LINES) || null;
    updateTrial(db, t);
    progress(t);
  };

  // Resolves with the final summary whatever the outcome (status 'error' when the runner itself failed).
  const done = (async (): Promise<ExperimentSummary> => {
    try {
      let next = 0;
      const worker = async () => {
        while (!abort.signal.aborted && budgetStop === null) {
          const t = trials[next++];
          if (!t) return;
          if (req.tokenCeiling !== undefined && tokensUsed >= req.tokenCeiling) {
            budgetStop = `stopped at the token ceiling of ${req.tokenCeiling} (${tokensUsed} live tokens used)`;
            next -= 1;
            return;
          }
          await runTrial(t);
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, trials.length) }, worker));
      let status: ExperimentStatus = 'done';
      let reason: string | null = null;
      if (abort.signal.aborted) {
        status = 'cancelled';
        reason = 'cancelled by the user';
        closeOpenTrials(db, experimentId, 'cancelled', 'the experiment was cancelled before this trial ran');
      } else if (budgetStop) {
        reason = budgetStop;
        closeOpenTrials(db, experimentId, 'skipped', budgetStop);
      }
      finishExperiment(db, experimentId, status, reason);
      for (const t of trials) if (t.outcome === 'pending') t.outcome = status === 'cancelled' ? 'cancelled' : 'skipped';
      progress(undefined, status);
      return getExperimentSummary(db, experimentId);
    } catch (err) {
      abort.abort();
      const message = `the runner failed: ${(err as Error).message}`;
      progress(undefined, 'error');
      // If the database itself failed this throws too; recoverExperiments marks the experiment interrupted at the next start.
      closeOpenTrials(db, experimentId, 'cancelled', message);
      finishExperiment(db, experimentId, 'error', message);
      return getExperimentSummary(db, experimentId);
    }
  })();

  return { experimentId, done, cancel: () => abort.abort() };
}
