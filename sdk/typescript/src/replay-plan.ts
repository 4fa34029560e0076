/**
 * The replay plan: the contract between the fork-experiment runner and the
 * SDKs (DESIGN.md §4, docs/replay.md). The runner writes one plan per trial
 * as a JSON file, starts the pipeline's recorded entry command with
 * TRACEBACK_REPLAY_PLAN=<path>, and the SDK inside that process:
 *   - before the fork step, returns each step's recorded output (or re-throws
 *     its recorded error) without executing it, after checking that the live
 *     step arrives under the same replay key with the same input fingerprint;
 *   - at the fork step, returns `edit.output` (treatment) or the recorded
 *     output (control); for an instructions edit it runs the step live in both
 *     arms, with the new instructions in the treatment;
 *   - after it, runs everything live, except side-effect steps without a mock.
 * The forked run is written to `inbox` like any run, with a provenance.
 *
 * Plain types and pure functions only: the engine, the SDK and the renderer
 * may all import this file.
 */
import type { Json, StepType, TokenUsage, TraceError } from './trace-format.js';

export const REPLAY_PLAN_ENV = 'TRACEBACK_REPLAY_PLAN';
export const REPLAY_PLAN_VERSION = 1;

/** One recorded step, as the SDK needs it to replay or check that step. */
export interface ReplayStepEntry {
  name: string;
  step_type: StepType;
  /** Recorded start order; a live step that arrives out of this order before the fork has diverged. */
  index: number;
  status: 'ok' | 'error';
  output?: Json;
  error?: TraceError;
  /** "sha256:<hex>" of the canonical JSON of the recorded input (see docs/replay.md); absent = not checked. */
  input_fingerprint?: string;
  /** The step returned a promise; its replay returns one too. */
  async?: boolean;
  model?: string;
  usage?: TokenUsage;
  /** Recorded metadata the SDK acts on (`side_effect`). */
  metadata?: Record<string, Json>;
}

export type ForkEdit =
  /** Replace the fork step's output (treatment); the control gets the recorded output. */
  | { kind: 'output'; output: Json }
  /** Run the fork step live in both arms; the treatment's step sees these instructions. */
  | { kind: 'instructions'; instructions: string };

/** Values of clock / random / id calls made through the SDK, per scope ('' = the pipeline body). */
export interface NondeterminismLog {
  now?: number[];
  random?: number[];
  id?: string[];
}

export interface ReplayPlan {
  v: typeof REPLAY_PLAN_VERSION;
  source_run_id: string;
  experiment_id: string;
  arm: 'treatment' | 'control';
  trial: number;
  /** Only a pipeline() with this name follows the plan (any name when absent). */
  pipeline?: string;
  /**
   * Which of the process's runs of `pipeline` is the forked one (an evaluation loop records several):
   * its position and input fingerprint, from the recording's entry. Absent: the first run.
   * Every other run in a trial process runs unrecorded.
   */
  target?: { run_index?: number; input_fingerprint?: string };
  fork_step_key: string;
  /** Recorded steps by replay key: the prefix before the fork and the fork step itself. */
  steps: Record<string, ReplayStepEntry>;
  edit: ForkEdit;
  /** strict: the first mismatch stops replay and marks the run diverged; warn: note it and keep replaying. */
  mode: 'strict' | 'warn';
  /** require-mock: a live step with metadata side_effect=true runs its registered mock or is refused. */
  side_effects: 'require-mock' | 'allow-live';
  /** Without it, a live step whose model differs from the recorded one is refused. */
  allow_model_change?: boolean;
  /** Model recorded for every step of the source run that had one (live steps after the fork are checked too). */
  recorded_models?: Record<string, string>;
  /** Where the forked run is written. */
  inbox: string;
  /** Run id for the forked run, so the runner knows which file to collect. */
  run_id?: string;
  nondeterminism?: Record<string, NondeterminismLog>;
  /** Added to the forked run's tags. */
  tags?: Record<string, string>;
}

/** Parse and check a plan file's text; throws an Error naming the first bad field. */
export function parseReplayPlan(text: string): ReplayPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`replay plan is not JSON: ${(err as Error).message}`);
  }
  const bad = (field: string, want: string): never => {
    throw new Error(`replay plan: "${field}" must be ${want}`);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) bad('(root)', 'an object');
  const p = raw as Record<string, unknown>;
  if (p.v !== REPLAY_PLAN_VERSION) bad('v', `${REPLAY_PLAN_VERSION} (this SDK knows only that version)`);
  for (const f of ['source_run_id', 'experiment_id', 'fork_step_key', 'inbox']) {
    if (typeof p[f] !== 'string' || !(p[f] as string)) bad(f, 'a non-empty string');
  }
  if (p.arm !== 'treatment' && p.arm !== 'control') bad('arm', '"treatment" or "control"');
  if (typeof p.trial !== 'number') bad('trial', 'a number');
  if (p.mode !== 'strict' && p.mode !== 'warn') bad('mode', '"strict" or "warn"');
  if (p.side_effects !== 'require-mock' && p.side_effects !== 'allow-live') bad('side_effects', '"require-mock" or "allow-live"');
  if (!p.steps || typeof p.steps !== 'object' || Array.isArray(p.steps)) bad('steps', 'an object keyed by replay key');
  for (const [key, e] of Object.entries(p.steps as Record<string, unknown>)) {
    const entry = e as Record<string, unknown>;
    if (!entry || typeof entry !== 'object') bad(`steps.${key}`, 'an object');
    if (typeof entry.index !== 'number') bad(`steps.${key}.index`, 'a number');
    if (entry.status !== 'ok' && entry.status !== 'error') bad(`steps.${key}.status`, '"ok" or "error"');
  }
  if (p.target !== undefined) {
    const t = p.target as Record<string, unknown> | null;
    if (!t || typeof t !== 'object' || Array.isArray(t)) bad('target', 'an object');
    else {
      if (t.run_index !== undefined && typeof t.run_index !== 'number') bad('target.run_index', 'a number');
      if (t.input_fingerprint !== undefined && typeof t.input_fingerprint !== 'string') bad('target.input_fingerprint', 'a string');
    }
  }
  const edit = p.edit as Record<string, unknown> | undefined;
  if (!edit || typeof edit !== 'object') bad('edit', 'an object');
  else if (edit.kind === 'instructions') {
    if (typeof edit.instructions !== 'string') bad('edit.instructions', 'a string');
  } else if (edit.kind === 'output') {
    if (!('output' in edit)) bad('edit.output', 'present (any JSON value)');
  } else bad('edit.kind', '"output" or "instructions"');
  return p as unknown as ReplayPlan;
}
