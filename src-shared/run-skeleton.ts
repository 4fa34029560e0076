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
  /** How many positions back each step's parent is (negative: further on), 0 for none: a root, a parent cut from a cycle, or one naming no step of the run (see parent_missing). */
  parent: number[];
  /** A parent_id naming no step of this run (an orphaned span), by position, as recorded. */
  parent_missing: Record<number, string>;
  /** A step's index minus its position: all 0 when indexes are 0…n-1, the usual case. */
  index_offset: number[];
  /** The distinct names, types and statuses; `name`, `type` and `status` are positions in it. */
  words: string[];
  name: number[];
  type: number[];
  status: number[];
  /** Times are milliseconds after this (the run's start, or 0 when an offset would not add back exactly). */
  time_origin: number;
  /**
   * true: started_at holds the time since the previous step's start (the first: since time_origin) and
   * ended_at the step's duration; false: both hold offsets from time_origin. Either way they add back exactly.
   */
  time_deltas: boolean;
  started_at: number[];
  ended_at: (number | null)[];
  /** Only the steps that have user scores, by position. */
  user_scores: Record<number, Score[]>;
  /** Token usage of the steps that recorded it, by position (small, and what token totals and the tokens column need). */
  usage: Record<number, TokenUsage>;
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
/*
 * Steps from a skeleton share one frozen empty metadata, extra and user scores: three objects fewer per step
 * (300,000 at 100,000 steps), which Chromium's garbage collector spent ~0.4 s of a 100,000-step open on.
 * Frozen, so a change made to one step's would throw instead of reaching every step.
 */
const NO_FIELDS: Record<string, never> = Object.freeze({});
const NO_SCORES: Score[] = Object.freeze([]) as unknown as Score[];

export function detailFromSkeleton(s: RunSkeleton): RunDetail {
  const c = s.steps;
  const origin = c.time_origin;
  const words = c.words;
  const steps: Step[] = new Array(c.step_id.length);
  let previous = origin;
  for (let i = 0; i < c.step_id.length; i++) {
    const back = c.parent[i];
    const started = c.time_deltas ? (previous += c.started_at[i]) : origin + c.started_at[i];
    const end = c.ended_at[i];
    const ended = end === null ? null : (c.time_deltas ? started : origin) + end;
    steps[i] = {
      run_id: s.run.run_id,
      step_id: c.step_id[i],
      parent_id: back !== 0 ? c.step_id[i - back] : (c.parent_missing[i] ?? null),
      index: i + c.index_offset[i],
      name: words[c.name[i]],
      type: words[c.type[i]] as Step['type'],
      replay_key: '',
      status: words[c.status[i]] as Step['status'],
      input: null,
      output: null,
      error: null,
      started_at: started,
      ended_at: ended,
      // As the store computes it (rows.ts): a step stamped as ending before it started lasted 0 ms.
      duration_ms: ended === null ? null : Math.max(0, ended - started),
      model: null,
      usage: c.usage[i] ?? null,
      metadata: NO_FIELDS,
      user_scores: c.user_scores[i] ?? NO_SCORES,
      replayed: false,
      extra: NO_FIELDS,
    };
  }
  return { run: s.run, steps };
}

/** Each step's parent as a position in the skeleton's order, -1 for none (what buildStepTree takes). */
export function parentPositions(c: StepColumns): Int32Array {
  const out = new Int32Array(c.parent.length);
  for (let i = 0; i < out.length; i++) out[i] = c.parent[i] === 0 ? -1 : i - c.parent[i];
  return out;
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
