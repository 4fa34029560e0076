/**
 * The shapes the engine stores and returns: a run and its steps as the store
 * holds them after import. Scorers, blame, diff and the UI all work on these.
 */
import type { Json, Provenance, StepType, TokenUsage, TraceError, EntryCommand } from './trace-format';

/**
 * running: no run-end yet and the file may still grow.
 * incomplete: no run-end and imported from a source that will not grow (or orphaned spans).
 * ok / error: the run ended with that status.
 */
export type RunStatus = 'running' | 'incomplete' | 'ok' | 'error';

export interface Verdict {
  pass: boolean;
  detail?: string;
  expected?: Json;
}

export interface RunSummary {
  run_id: string;
  pipeline: string;
  status: RunStatus;
  steps: number;
  started_at: number;
  duration_ms: number | null;
  verdict: Verdict | null;
  /** 'native' for the SDK format; otherwise the importer that produced it (otlp, langchain, ...). */
  source_format: string;
  forked: boolean;
  /** Filled by blame (issue 3); null until computed. */
  blame_score?: number | null;
  healthy?: boolean | null;
  /** The failure detector's answer as stored with the blame result; null until computed. */
  detection?: 'failed' | 'healthy' | 'unknown' | null;
  /** The user marked the run as failed ("Mark as failed…", `tb mark`). */
  asserted?: boolean;
  /** Problems the importer recorded for lines of this run's file (see store/import-files.ts for which concern it). */
  import_problems?: { errors: number; warnings: number };
}

export interface Run extends RunSummary {
  ended_at: number | null;
  input: Json | null;
  output: Json | null;
  error: TraceError | null;
  tags: Record<string, string>;
  entry: EntryCommand | null;
  provenance: Provenance | null;
  sdk: { name: string; version: string; language?: string } | null;
  source_file: string | null;
  /** Scores the user recorded on the run as a whole. */
  user_scores: Score[];
  /** Unknown fields found in the run's records, kept verbatim. */
  extra: Record<string, Json>;
  /**
   * local: read from a native file in this home's inbox (written by the local SDK or a trial).
   * foreign: imported from anywhere else; never chosen as a reference or used as live input without the user's say.
   */
  origin?: 'local' | 'foreign';
}

export interface Score {
  name: string;
  value: number;
  explanation?: string;
  /** 'user' when recorded through the SDK, otherwise the scorer's name. */
  source: string;
}

export interface Step {
  run_id: string;
  step_id: string;
  parent_id: string | null;
  /** Start order within the run (0-based); parents always precede their children. */
  index: number;
  name: string;
  type: StepType;
  replay_key: string;
  status: 'running' | 'ok' | 'error';
  input: Json | null;
  output: Json | null;
  error: TraceError | null;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  model: string | null;
  usage: TokenUsage | null;
  metadata: Record<string, Json>;
  /** Scores the user recorded through the SDK for this step. */
  user_scores: Score[];
  replayed: boolean;
  extra: Record<string, Json>;
}

export interface RunDetail {
  run: Run;
  /** In start order. */
  steps: Step[];
}

export interface ImportError {
  file: string;
  line: number;
  message: string;
  level: 'error' | 'warning';
}

export interface ImportReport {
  imported: { file: string; runs: string[] }[];
  errors: ImportError[];
  /**
   * Runs the import did not blame because they are too large to blame unasked (more steps than the engine's
   * AUTO_BLAME_MAX_STEPS): their blame is computed when it is asked for (tb blame, the run's view, the gate).
   */
  blame_deferred?: DeferredBlame[];
}

export interface DeferredBlame {
  run_id: string;
  steps: number;
}
