/**
 * Result shapes of the analysis engines (scoring, blame, diff). They are part
 * of the public contract: `tb blame --json` and `tb diff --json` print them,
 * so fields may be added but never renamed or removed.
 */
import type { Score } from './model';
import type { StepType } from './trace-format';
import type { SeenBefore } from './motifs';

export type Confidence = 'high' | 'medium' | 'low';

/** A verbatim quote from one field of one step, which a person can find in the trace. */
export interface Evidence {
  step_id: string;
  field: 'input' | 'output' | 'error' | 'metadata' | 'run';
  quote: string;
}

export interface StepHealth {
  step_id: string;
  name: string;
  type: StepType;
  index: number;
  /** 0 = certainly bad, 1 = certainly healthy; null when no scorer applied. */
  score: number | null;
  checks: Score[];
}

export interface BlamedStep {
  step_id: string;
  name: string;
  type: StepType;
  index: number;
  /** Blame strength in [0, 1]; higher is more to blame. */
  score: number;
  confidence: Confidence;
  /** One sentence a person can check against the trace. */
  reason: string;
  evidence: Evidence[];
  /** Which blame rule produced this finding (see docs/blame.md). */
  rule: string;
}

/**
 * One data-lineage edge: output of step `from` flowed into step `to` (its
 * input, or for `via: 'parent'` a child's output into its parent's output).
 * `tool_call`: a tool call id links an LLM's call to the tool; `state`: a
 * state key written by `from` and read by `to`; `value`: values or phrases
 * of `from`'s output reappear in `to`'s input.
 */
export interface LineageEdge {
  from: string;
  to: string;
  via: 'parent' | 'state' | 'tool_call' | 'value';
  detail?: string;
}

/** What the user said about a run ("Mark as failed…", `tb mark RUN --failed`). */
export interface RunAssertion {
  failed: boolean;
  /** The answer the run should have given, if the user said. */
  expected: string | null;
  note: string | null;
  asserted_at: number;
}

/** One observation that says a run may have failed, with how strongly it says so. */
export interface FailureSignal {
  /** verdict, run-error, incomplete, user-score, unrecovered-error, error-payload, bad-output, hidden-error, final-empty, final-gives-up, final-refusal, guardrail-block, expected-missing, ungrounded-fact, no-progress, samples-disagree, off-topic-answer */
  name: string;
  /** In [0, 1]: the settings' `failure.strength.<name>`. */
  strength: number;
  /** The step it was seen on; null for the run as a whole. */
  step_id: string | null;
  description: string;
  evidence?: Evidence[];
}

/** Did the run fail? Decided from the trace alone (or asserted by the user), before and apart from blame. */
export interface FailureDetection {
  status: 'failed' | 'healthy' | 'unknown';
  /** The strongest signal's name ('asserted' when the user said so); null when healthy. */
  kind: string | null;
  description: string;
  /** Strongest first. */
  signals: FailureSignal[];
  asserted: boolean;
}

/**
 * Runs of more steps are not blamed unasked (after an import, by the watcher, on opening the run in the app): a
 * blame holds the whole run in memory, ~0.9 KB of heap a step for a native run and ~1.5 KB for an OTLP one (its
 * span attributes), and the blame that followed the streamed import of a 100 MB OTLP file (126,346 spans, one
 * trace) took `tb import` from the import's 173 MB to 791 MB; a 500 MB file's would take gigabytes. At this many
 * steps the run's detail is ~90–150 MB. Such a run is blamed when the user asks (tb blame, the Blame button of its
 * view, the gate, a report).
 */
export const AUTO_BLAME_MAX_STEPS = 100_000;

export interface BlameResult {
  run_id: string;
  healthy: boolean;
  /** Why the run counts as failed; null when healthy. `signals` lists every failure signal, strongest first. */
  failure: { kind: string; description: string; signals?: FailureSignal[] } | null;
  /** True when the user asserted the failure (`tb blame --failed`, `--expected`, "Mark as failed"). */
  asserted?: boolean;
  /** The stored assertion the result used, if any. */
  assertion?: RunAssertion | null;
  /** The failure detector's answer, for every run (healthy and unknown ones too). */
  detection?: FailureDetection;
  /** Best first; empty for healthy runs. */
  blamed: BlamedStep[];
  /** Steps within a near tie of the top finding. */
  co_blamed: BlamedStep[];
  /** Steps that failed only because of an upstream cause. */
  symptoms: { step_id: string; name: string; caused_by: string; reason: string }[];
  /** Step ids from the top cause to the final output, following data lineage. */
  lineage_path: string[];
  step_scores: StepHealth[];
  /**
   * Only when blameRun was asked for notable step scores: the steps left out of step_scores because
   * every check passed (score 1). A step in neither list had no scorer.
   */
  step_scores_passed?: string[];
  /** Failed steps the run recovered from (a retry, a fallback, or an error that was caught); never blamed. */
  recovered?: { step_id: string; name: string; by: string | null; reason: string }[];
  /** Steps repeated with the same content under one parent (no-progress loops); symptoms, not causes. */
  loops?: { parent_id: string | null; name: string; count: number; step_ids: string[] }[];
  /**
   * Inferred data lineage between steps, for every run (healthy ones too):
   * at most 5 edges into one step (the strongest) and 20,000 in all.
   * Edges from the run's own input are left out.
   */
  lineage_edges?: LineageEdge[];
  /** Remembered failure motifs closest to this failure ("Seen before"), filled by the engine's blameRun; absent for healthy runs. */
  seen_before?: SeenBefore[];
}

export type DiffVerdict = 'regression' | 'improvement' | 'neutral';

export interface DiffRow {
  /** Alignment key (replay key, or tree position when keys are missing). */
  key: string;
  a: { step_id: string; name: string; type: StepType; score: number | null; status: string } | null;
  b: { step_id: string; name: string; type: StepType; score: number | null; status: string } | null;
  /** b.score - a.score when both are scored. */
  delta: number | null;
  change: 'same' | 'changed' | 'added' | 'removed';
}

export interface DiffResult {
  run_a: string;
  run_b: string;
  verdict: DiffVerdict;
  /** The step the verdict names (the regressed or improved step). */
  step: { key: string; step_id_a: string | null; step_id_b: string | null; name: string } | null;
  reason: string;
  /** Where the runs first part: a step present in only one (structure), else the first changed step (content). */
  first_divergence: { key: string; description: string; kind?: 'structure' | 'content' } | null;
  rows: DiffRow[];
}
