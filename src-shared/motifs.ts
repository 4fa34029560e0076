/**
 * Failure motifs: what Traceback learned from a failure whose cause was
 * confirmed, abstracted so that it can warn about the next task of the same
 * kind (docs/motifs.md). Part of the public contract (`tb motifs --json`,
 * the exported JSON file the SDKs read): fields may be added, never removed.
 */
import type { Evidence } from './analysis';
import type { StepType } from './trace-format';

export const MOTIF_FILE_FORMAT = 'traceback-motifs';
export const MOTIF_FILE_VERSION = 1;

export interface FailureMotif {
  motif_id: string;
  /** Short and abstract: no run-specific values. */
  name: string;
  /** What the step was required to do. */
  requirement: string;
  /** What it did instead. */
  violation: string;
  recommendation: string;
  /**
   * Words a task must contain (verbatim, by stem) for the motif to apply: the
   * pitfall gate quotes the task where they occur. Abstract words only (no numbers).
   */
  task_cue: string;
  /** Text a proposed call or output contains when it repeats the violation (the guard quotes it). Empty: the guard never fires. */
  violation_cue: string;
  /** The step's name without its occurrence number (e.g. "planner"), and its type. */
  step_signature: string;
  step_type: StepType;
  failure_kind: string | null;
  signals: string[];
  /** Verbatim quotes from the source run. */
  evidence: Evidence[];
  /** The edit that fixed it, in words (and the JSON path it changed, if one). */
  fix: { kind: 'output' | 'instructions'; summary: string } | null;
  /** The experiment that proved the fix (rates of each arm, p-value), if one did. */
  proof: { experiment_id: string; treatment_pass_rate: number; control_pass_rate: number; p_value: number } | null;
  origin: 'blame' | 'agent' | 'imported';
  /** The local run it was learned from (null for an imported motif); the motif goes when that run goes. */
  source_run_id: string | null;
  /** The run id it was learned from, as the team that learned it recorded it (kept through export/import). */
  learned_from_run: string | null;
  pipeline: string | null;
  created_at: number;
}

/** A motif close to a new failure ("Seen before"), with how close and why. */
export interface SeenBefore {
  motif_id: string;
  name: string;
  similarity: number;
  /** The shared terms, for the reader to check. */
  shared_terms: string[];
  source_run_id: string | null;
  experiment_id: string | null;
}

/** The file `tb motifs export` writes and the SDKs read. */
export interface MotifFile {
  format: typeof MOTIF_FILE_FORMAT;
  version: number;
  exported_at: number;
  /** The gate's thresholds from the app's settings (motifs.pitfall_threshold, motifs.guard_threshold): the SDKs' defaults. */
  thresholds?: { pitfall: number; guard: number };
  motifs: FailureMotif[];
}
