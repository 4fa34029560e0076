/**
 * A run in two parts, for runs too big to ship whole (a 100,000-step run is
 * ~40 MB of JSON): the skeleton of every step — what the step list, tree and
 * waterfall draw — and the payloads (input, output, error, usage, metadata,
 * extra) of the steps a view actually shows, fetched on demand by id or by
 * position. `getRun` still returns the whole run (docs/adr/0008).
 *
 * The skeleton is columnar: one array per field, entry i for the i-th step in
 * start order. An object per step would repeat every key for every step, the
 * larger part of its JSON.
 */
import type { RunDetail, Run, Score, Step } from './model';
import type { TokenUsage } from './trace-format';

export interface StepColumns {
  step_id: string[];
  parent_id: (string | null)[];
  index: number[];
  name: string[];
  type: Step['type'][];
  status: Step['status'][];
  started_at: number[];
  ended_at: (number | null)[];
  /** Only the steps that have user scores, by position. */
  user_scores: Record<number, Score[]>;
  /** Token usage of the steps that recorded it, by position (small, and what token totals and the tokens column need). */
  usage?: Record<number, TokenUsage>;
}

export interface RunSkeleton {
  run: Run;
  steps: StepColumns;
}

/** A step's payload, plus the fields only its own panel and the fork editor read (replay key, model, replayed), kept out of the skeleton to keep it small. */
export type StepPayload = Pick<Step, 'step_id' | 'input' | 'output' | 'error' | 'usage' | 'metadata' | 'extra' | 'replay_key' | 'model' | 'replayed'>;

/**
 * The steps of a skeleton as Step objects, payload fields empty (input, output, error and model
 * null; metadata and extra {}; replay_key ''; replayed false; usage as the skeleton has it): fields
 * equal to getRun's once a step's payload is merged in.
 */
export function detailFromSkeleton(s: RunSkeleton): RunDetail {
  const c = s.steps;
  const steps: Step[] = new Array(c.step_id.length);
  for (let i = 0; i < c.step_id.length; i++) {
    const ended = c.ended_at[i];
    steps[i] = {
      run_id: s.run.run_id,
      step_id: c.step_id[i],
      parent_id: c.parent_id[i],
      index: c.index[i],
      name: c.name[i],
      type: c.type[i],
      replay_key: '',
      status: c.status[i],
      input: null,
      output: null,
      error: null,
      started_at: c.started_at[i],
      ended_at: ended,
      // As the store computes it (rows.ts): a step stamped as ending before it started lasted 0 ms.
      duration_ms: ended === null ? null : Math.max(0, ended - c.started_at[i]),
      model: null,
      usage: c.usage?.[i] ?? null,
      metadata: {},
      user_scores: c.user_scores[i] ?? [],
      replayed: false,
      extra: {},
    };
  }
  return { run: s.run, steps };
}

/** A step with its fetched payload (unchanged when the payload is another step's, or not here yet). */
export function withPayload(step: Step, payload: StepPayload | undefined): Step {
  if (!payload || payload.step_id !== step.step_id) return step;
  return {
    ...step,
    input: payload.input,
    output: payload.output,
    error: payload.error,
    usage: payload.usage,
    metadata: payload.metadata,
    extra: payload.extra,
    replay_key: payload.replay_key,
    model: payload.model,
    replayed: payload.replayed,
  };
}
