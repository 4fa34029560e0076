/**
 * Traceback native trace format, version 1 (see docs/trace-format.md and
 * resources/trace-format.schema.json). One JSON object per line, UTF-8,
 * append-only. Every record names its run so that a file may be tailed from
 * any offset and may hold more than one run.
 *
 * Times are epoch milliseconds (fractions allowed). Unknown fields are kept on
 * import (in `extra`), unknown record types are skipped with a warning, and a
 * header whose major version is not 1 makes the importer refuse the file.
 */

export const TRACE_FORMAT_MAJOR = 1;
export const TRACE_FORMAT_VERSION = '1.0';

export const STEP_TYPES = ['retrieval', 'prompt', 'llm', 'tool', 'agent', 'generic'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface TraceError {
  type: string;
  message: string;
  stack?: string;
  /** HTTP-like status when the failing call had one (e.g. 404, 503). */
  status?: number;
}

export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cost_usd?: number;
}

/** How to re-run the pipeline that wrote this run (used by fork experiments). */
export interface EntryCommand {
  command: string[];
  cwd?: string;
  /** Variables a re-run needs: a value, or "[REDACTED]" for a name whose value the trial takes from the user's environment. */
  env?: Record<string, string>;
  /** This run's position among the runs of its pipeline the process started (0-based): a fork of one run of an evaluation loop targets it. */
  run_index?: number;
  /** Fingerprint of the run's input (as for steps): tells the runs of one process apart. */
  input_fingerprint?: string;
}

/** Set on runs produced by a fork experiment. */
export interface Provenance {
  source_run_id: string;
  experiment_id: string;
  arm: 'treatment' | 'control';
  fork_step_key: string;
  trial?: number;
  diverged?: boolean;
  divergence?: string;
  /**
   * Set at run end: did the pipeline consume the edit's slot? An output edit: the fork step
   * ran. An instructions edit: the fork step (or a step inside it) read its instructions.
   */
  edit_applied?: boolean;
}

export interface RunStartRecord {
  type: 'run-start';
  /** Format version "MAJOR.MINOR"; the importer refuses an unknown major. */
  v: string;
  run_id: string;
  pipeline: string;
  ts: number;
  input?: Json;
  sdk?: { name: string; version: string; language?: string };
  entry?: EntryCommand;
  tags?: Record<string, string>;
  provenance?: Provenance;
}

export interface StepStartRecord {
  type: 'step-start';
  run_id: string;
  step_id: string;
  parent_id: string | null;
  /** Start order within the run, assigned by the SDK when the step starts (0-based). */
  index: number;
  name: string;
  step_type: StepType;
  /** Stable across re-runs: name + "#" + occurrence under its parent, after the parent's key and "/" (e.g. "plan#0/search#2"). */
  replay_key: string;
  ts: number;
  input?: Json;
  metadata?: Record<string, Json>;
}

export interface StepEndRecord {
  type: 'step-end';
  run_id: string;
  step_id: string;
  ts: number;
  status: 'ok' | 'error';
  output?: Json;
  error?: TraceError;
  model?: string;
  usage?: TokenUsage;
  metadata?: Record<string, Json>;
  /** True when the output came from a replay plan rather than a live execution. */
  replayed?: boolean;
}

/** A score the user recorded (on a step, or on the run when step_id is absent). */
export interface ScoreRecord {
  type: 'score';
  run_id: string;
  step_id?: string;
  name: string;
  value: number;
  explanation?: string;
  ts: number;
}

export interface VerdictRecord {
  type: 'verdict';
  run_id: string;
  pass: boolean;
  detail?: string;
  expected?: Json;
  ts: number;
}

export interface RunEndRecord {
  type: 'run-end';
  run_id: string;
  ts: number;
  status: 'ok' | 'error';
  output?: Json;
  error?: TraceError;
  /**
   * Forked runs only: the provenance as known at the end of the run. It
   * supersedes the run-start's, which cannot yet know whether the trial
   * diverged from the recording (`diverged`, `divergence`).
   */
  provenance?: Provenance;
}

export type TraceRecord =
  | RunStartRecord
  | StepStartRecord
  | StepEndRecord
  | ScoreRecord
  | VerdictRecord
  | RunEndRecord;

export const RECORD_TYPES = ['run-start', 'step-start', 'step-end', 'score', 'verdict', 'run-end'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
