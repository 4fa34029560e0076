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
import type { Run, Score, Step } from './model';

export interface StepColumns {
  step_id: string[];
  parent_id: (string | null)[];
  index: number[];
  name: string[];
  type: Step['type'][];
  replay_key: string[];
  status: Step['status'][];
  started_at: number[];
  ended_at: (number | null)[];
  model: (string | null)[];
  replayed: boolean[];
  /** Only the steps that have user scores, by position. */
  user_scores: Record<number, Score[]>;
}

export interface RunSkeleton {
  run: Run;
  steps: StepColumns;
}

export type StepPayload = Pick<Step, 'step_id' | 'input' | 'output' | 'error' | 'usage' | 'metadata' | 'extra'>;
