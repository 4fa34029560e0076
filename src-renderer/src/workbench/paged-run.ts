/**
 * Runs too big to ship whole are read in two parts (docs/adr/0008): the
 * skeleton of every step, which the step list, tree, waterfall and graph
 * draw, and the payload of the step the user looks at, fetched on demand.
 * A 100,000-step run is ~43 MB through getRun; its skeleton ~10 MB.
 */
import type { RunDetail, Step } from '../../../src-shared/model';
import type { RunSkeleton, StepPayload } from '../../../src-shared/run-skeleton';

/**
 * Above this many steps a run opens from its skeleton. Measured (npm run bench:ui, quiet machine):
 * a 10,000-step run opens whole in ~0.6 s, well inside its 1 s goal; a 100,000-step one took 5 s.
 */
export const PAGED_ABOVE = 20_000;

/** The steps of a skeleton as Step objects without payloads (input, output, error, usage, metadata are empty until fetched). */
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
      replay_key: c.replay_key[i],
      status: c.status[i],
      input: null,
      output: null,
      error: null,
      started_at: c.started_at[i],
      ended_at: ended,
      duration_ms: ended === null ? null : ended - c.started_at[i],
      model: c.model[i],
      usage: null,
      metadata: {},
      user_scores: c.user_scores[i] ?? [],
      replayed: c.replayed[i],
      extra: {},
    };
  }
  return { run: s.run, steps };
}

/** A skeleton step with its fetched payload (unchanged while the payload is on its way). */
export function withPayload(step: Step, payload: StepPayload | undefined): Step {
  if (!payload || payload.step_id !== step.step_id) return step;
  return { ...step, input: payload.input, output: payload.output, error: payload.error, usage: payload.usage, metadata: payload.metadata, extra: payload.extra };
}
