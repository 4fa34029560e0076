/**
 * Experiments and trials in the store (migration 0003). The trials table is
 * the source of truth: an experiment's summary is always recomputed from its
 * trials, so nothing a crash leaves half-written can contradict it.
 */
import type { Db, ReadableDb } from './open-database';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { ExperimentEstimate, ExperimentStatus, OracleSpec, TrialSummary } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';

interface ExperimentOptions {
  /** The engine instance running it (see RUNNER_TOKEN). */
  runner_token?: string;
  max_trials?: number;
  token_ceiling?: number;
  clopper_pearson?: boolean;
}

export interface ExperimentRecord {
  experiment_id: string;
  source_run_id: string;
  pipeline: string;
  fork_step_key: string;
  fork_step_name: string;
  edit: ForkEdit;
  oracle: OracleSpec;
  n_per_arm: number;
  parallel: number;
  timeout_ms: number;
  options: ExperimentOptions;
  label: string | null;
  group_id: string | null;
  status: ExperimentStatus;
  stop_reason: string | null;
  estimate: ExperimentEstimate | null;
  runner_pid: number | null;
  created_at: number;
  ended_at: number | null;
}

interface ExperimentRow extends Omit<ExperimentRecord, 'edit' | 'oracle' | 'options' | 'estimate'> {
  edit: string;
  oracle: string;
  options: string | null;
  estimate: string | null;
}

/** A trial as stored: what the contract shows, plus what its replay saved. */
/** What the replayed prefix saved (experiments/trial-usage.ts computes it). */
interface SavedByReplay {
  saved_calls: number;
  saved_tokens: number;
}

export interface TrialRecord extends TrialSummary, SavedByReplay {
  experiment_id: string;
}

function fromRow(r: ExperimentRow): ExperimentRecord {
  return {
    ...r,
    edit: JSON.parse(r.edit) as ForkEdit,
    oracle: JSON.parse(r.oracle) as OracleSpec,
    options: r.options ? (JSON.parse(r.options) as ExperimentOptions) : {},
    estimate: r.estimate ? (JSON.parse(r.estimate) as ExperimentEstimate) : null,
  };
}

/** Writes the experiment and all its trials as pending, in one transaction. */
export function insertExperiment(db: Db, e: ExperimentRecord, trials: TrialRecord[]): void {
  const insertE = db.prepare(
    `INSERT INTO experiments (experiment_id, source_run_id, pipeline, fork_step_key, fork_step_name, edit, oracle, n_per_arm, parallel,
       timeout_ms, options, label, group_id, status, stop_reason, estimate, runner_pid, created_at, ended_at)
     VALUES (@experiment_id, @source_run_id, @pipeline, @fork_step_key, @fork_step_name, @edit, @oracle, @n_per_arm, @parallel,
       @timeout_ms, @options, @label, @group_id, @status, @stop_reason, @estimate, @runner_pid, @created_at, @ended_at)`,
  );
  const insertT = db.prepare(
    `INSERT INTO trials (experiment_id, arm, trial, run_id, outcome, detail, started_at, ended_at, duration_ms, tokens, cost_usd, calls,
       replayed_steps, saved_calls, saved_tokens, exit_code, log_file, stderr_tail, edit_applied)
     VALUES (@experiment_id, @arm, @trial, @run_id, @outcome, @detail, @started_at, @ended_at, @duration_ms, @tokens, @cost_usd, @calls,
       @replayed_steps, @saved_calls, @saved_tokens, @exit_code, @log_file, @stderr_tail, @edit_applied)`,
  );
  db.transaction(() => {
    insertE.run({
      ...e,
      edit: JSON.stringify(e.edit),
      oracle: JSON.stringify(e.oracle),
      options: JSON.stringify(e.options),
      estimate: e.estimate ? JSON.stringify(e.estimate) : null,
    });
    for (const t of trials) insertT.run(trialRow(t));
  })();
}

export function updateTrial(db: Db, t: TrialRecord): void {
  db.prepare(
    `UPDATE trials SET outcome = @outcome, detail = @detail, started_at = @started_at, ended_at = @ended_at, duration_ms = @duration_ms,
       tokens = @tokens, cost_usd = @cost_usd, calls = @calls, replayed_steps = @replayed_steps, saved_calls = @saved_calls,
       saved_tokens = @saved_tokens, exit_code = @exit_code, log_file = @log_file, stderr_tail = @stderr_tail, edit_applied = @edit_applied
     WHERE experiment_id = @experiment_id AND arm = @arm AND trial = @trial`,
  ).run(trialRow(t));
}

/** SQLite has no booleans: edit_applied is stored as 1 / 0 / NULL. */
function trialRow(t: TrialRecord): TrialRow {
  return { ...t, edit_applied: t.edit_applied === null ? null : t.edit_applied ? 1 : 0 };
}

type TrialRow = Omit<TrialRecord, 'edit_applied'> & { edit_applied: number | null };

function fromTrialRow(r: TrialRow): TrialRecord {
  return { ...r, edit_applied: r.edit_applied === null ? null : r.edit_applied === 1 };
}

/** Marks every trial still pending or running with `outcome`. */
export function closeOpenTrials(db: Db, experimentId: string, outcome: 'skipped' | 'cancelled' | 'interrupted', detail: string): void {
  db.prepare(`UPDATE trials SET outcome = ?, detail = ? WHERE experiment_id = ? AND outcome IN ('pending','running')`).run(outcome, detail, experimentId);
}

export function finishExperiment(db: Db, experimentId: string, status: ExperimentStatus, stopReason: string | null, endedAt = Date.now()): void {
  db.prepare('UPDATE experiments SET status = ?, stop_reason = ?, ended_at = ? WHERE experiment_id = ?').run(status, stopReason, endedAt, experimentId);
}

export function readExperiment(db: ReadableDb, experimentId: string): ExperimentRecord {
  const row = db.prepare('SELECT * FROM experiments WHERE experiment_id = ?').get(experimentId) as ExperimentRow | undefined;
  if (row) return fromRow(row);
  const prefixed = db
    .prepare(`SELECT * FROM experiments WHERE experiment_id LIKE ? ESCAPE '\\' ORDER BY experiment_id LIMIT 2`)
    .all(`${experimentId.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as ExperimentRow[];
  if (prefixed.length === 1) return fromRow(prefixed[0]);
  if (prefixed.length === 0) throw new EngineError('not_found', `no experiment matches "${experimentId}"`);
  throw new EngineError('ambiguous', `"${experimentId}" matches several experiments`);
}

export function readTrials(db: ReadableDb, experimentId: string): TrialRecord[] {
  const rows = db.prepare(`SELECT * FROM trials WHERE experiment_id = ? ORDER BY trial, arm = 'treatment'`).all(experimentId) as TrialRow[];
  return rows.map(fromTrialRow);
}

export function toTrialSummary(t: TrialRecord): TrialSummary {
  return {
    arm: t.arm,
    trial: t.trial,
    run_id: t.run_id,
    outcome: t.outcome,
    detail: t.detail,
    started_at: t.started_at,
    ended_at: t.ended_at,
    duration_ms: t.duration_ms,
    tokens: t.tokens,
    cost_usd: t.cost_usd,
    calls: t.calls,
    replayed_steps: t.replayed_steps,
    exit_code: t.exit_code,
    log_file: t.log_file,
    stderr_tail: t.stderr_tail,
    edit_applied: t.edit_applied,
  };
}

export interface ListExperimentsQuery {
  runId?: string;
  groupId?: string;
  limit?: number;
}

/** Newest first, each with its trials. */
export function listExperimentRecords(db: ReadableDb, q: ListExperimentsQuery = {}): { experiment: ExperimentRecord; trials: TrialRecord[] }[] {
  const rows = db
    .prepare(
      `SELECT * FROM experiments WHERE (@run IS NULL OR source_run_id = @run) AND (@grp IS NULL OR group_id = @grp)
       ORDER BY created_at DESC LIMIT @limit`,
    )
    .all({ run: q.runId ?? null, grp: q.groupId ?? null, limit: q.limit ?? 1000 }) as ExperimentRow[];
  const trialsOf = db.prepare(`SELECT * FROM trials WHERE experiment_id = ?`);
  return rows.map((r) => ({ experiment: fromRow(r), trials: (trialsOf.all(r.experiment_id) as TrialRow[]).map(fromTrialRow) }));
}

/** Experiments marked running, with the process and engine instance that run them. */
export function runningExperiments(db: ReadableDb): { experiment_id: string; runner_pid: number | null; runner_token: string | null }[] {
  return db
    .prepare(`SELECT experiment_id, runner_pid, json_extract(options, '$.runner_token') AS runner_token FROM experiments WHERE status = 'running'`)
    .all() as { experiment_id: string; runner_pid: number | null; runner_token: string | null }[];
}
