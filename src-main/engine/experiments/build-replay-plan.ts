/**
 * The engine writes a replay plan for each trial; the SDK only reads it
 * (src-shared/replay-plan.ts holds the format and its parser, which both use).
 */
import type { RunDetail, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { REPLAY_PLAN_VERSION, type ForkEdit, type NondeterminismLog, type ReplayPlan, type ReplayStepEntry } from '../../../src-shared/replay-plan';
import { setOwn } from '../../../src-shared/own-property';

export interface BuildReplayPlanOptions {
  experimentId: string;
  arm: 'treatment' | 'control';
  trial: number;
  forkStepKey: string;
  edit: ForkEdit;
  inbox: string;
  runId?: string;
  mode?: 'strict' | 'warn';
  sideEffects?: 'require-mock' | 'allow-live';
  allowModelChange?: boolean;
  tags?: Record<string, string>;
}

/**
 * A plan for one trial of a fork of `detail` at `forkStepKey`. Throws when the
 * fork key is not a step of the run. Fingerprints come from the
 * `input_fingerprint` the SDK wrote beside each step-start (kept by the
 * importer in `step.extra`); steps without one are replayed unchecked.
 */
export function buildReplayPlan(detail: RunDetail, opts: BuildReplayPlanOptions): ReplayPlan {
  const fork = detail.steps.find((s) => s.replay_key === opts.forkStepKey);
  if (!fork) throw new Error(`run ${detail.run.run_id} has no step with replay key "${opts.forkStepKey}"`);
  const steps: Record<string, ReplayStepEntry> = {};
  for (const s of detail.steps) {
    if (s.index > fork.index) continue;
    // A step still "running" in the recording has no output to replay; leaving it out makes a
    // live arrival under its key a divergence rather than a silent replay of nothing.
    if (s.status === 'running') continue;
    setOwn(steps, s.replay_key, entryOf(s));
  }
  const recordedModels: Record<string, string> = {};
  for (const s of detail.steps) if (s.model) setOwn(recordedModels, s.replay_key, s.model);
  const nondeterminism: Record<string, NondeterminismLog> = {};
  const rootLog = logOf((detail.run.extra as Record<string, Json> | undefined)?.nondeterminism);
  if (rootLog) nondeterminism[''] = rootLog;
  for (const s of detail.steps) {
    const log = logOf(s.metadata?.nondeterminism);
    if (log && s.index <= fork.index) setOwn(nondeterminism, s.replay_key, log);
  }
  // An evaluation loop records several runs per process: the trial must fork this one and record no other.
  const entry = detail.run.entry;
  const target: ReplayPlan['target'] = {};
  if (typeof entry?.run_index === 'number') target.run_index = entry.run_index;
  if (typeof entry?.input_fingerprint === 'string') target.input_fingerprint = entry.input_fingerprint;
  return {
    v: REPLAY_PLAN_VERSION,
    source_run_id: detail.run.run_id,
    experiment_id: opts.experimentId,
    arm: opts.arm,
    trial: opts.trial,
    pipeline: detail.run.pipeline,
    target: Object.keys(target).length ? target : undefined,
    fork_step_key: opts.forkStepKey,
    steps,
    edit: opts.edit,
    mode: opts.mode ?? 'strict',
    side_effects: opts.sideEffects ?? 'require-mock',
    allow_model_change: opts.allowModelChange ?? false,
    recorded_models: Object.keys(recordedModels).length ? recordedModels : undefined,
    inbox: opts.inbox,
    run_id: opts.runId,
    nondeterminism: Object.keys(nondeterminism).length ? nondeterminism : undefined,
    tags: opts.tags,
  };
}

function entryOf(s: Step): ReplayStepEntry {
  const entry: ReplayStepEntry = {
    name: s.name,
    step_type: s.type,
    index: s.index,
    status: s.status === 'error' ? 'error' : 'ok',
  };
  if (s.output !== null && s.output !== undefined) entry.output = s.output;
  if (s.error) entry.error = s.error;
  const fp = s.extra?.input_fingerprint;
  if (typeof fp === 'string') entry.input_fingerprint = fp;
  if (s.extra?.async === true) entry.async = true;
  if (s.model) entry.model = s.model;
  if (s.usage) entry.usage = s.usage;
  if (s.metadata?.side_effect === true) entry.metadata = { side_effect: true };
  return entry;
}

function logOf(value: Json | undefined): NondeterminismLog | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const log: NondeterminismLog = {};
  const nums = (v: Json | undefined) => (Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined);
  const now = nums(value.now);
  const random = nums(value.random);
  const id = Array.isArray(value.id) && value.id.every((x) => typeof x === 'string') ? (value.id as string[]) : undefined;
  if (now) log.now = now;
  if (random) log.random = random;
  if (id) log.id = id;
  return now || random || id ? log : null;
}

