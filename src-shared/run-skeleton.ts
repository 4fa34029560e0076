/**
 * A run in two parts, for runs too big to ship whole (a 100,000-step run is
 * ~40 MB of JSON): the skeleton of every step — what the step list, tree and
 * waterfall draw — and the payloads (input, output, error, usage, metadata,
 * extra) of the steps a view actually shows, fetched on demand by id or by
 * position. `getRun` still returns the whole run (docs/adr/0008).
 */
import type { Run, Step } from './model';

export type StepSkeleton = Pick<
  Step,
  'run_id' | 'step_id' | 'parent_id' | 'index' | 'name' | 'type' | 'replay_key' | 'status' | 'started_at' | 'ended_at' | 'duration_ms' | 'model' | 'user_scores' | 'replayed'
>;

export interface RunSkeleton {
  run: Run;
  /** In start order, as in getRun. */
  steps: StepSkeleton[];
}

export type StepPayload = Pick<Step, 'step_id' | 'input' | 'output' | 'error' | 'usage' | 'metadata' | 'extra'>;
