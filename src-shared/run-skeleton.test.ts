import { describe, expect, it } from 'vitest';
import type { Run } from './model';
import type { RunSkeleton, StepPayload } from './run-skeleton';
import { detailFromSkeleton, parentPositions, withPayload } from './run-skeleton';

const run = { run_id: 'r1', started_at: 1000 } as Run;

const skeleton: RunSkeleton = {
  run,
  steps: {
    step_id: ['s0', 's1', 's2'],
    parent: [0, 1, 0],
    parent_missing: { 2: 'gone' },
    index_offset: [0, 0, 5],
    words: ['agent', 'ok', 'lookup', 'tool', 'error'],
    name: [0, 2, 2],
    type: [0, 3, 3],
    status: [1, 4, 1],
    time_origin: 1000,
    time_deltas: false,
    started_at: [0, 10, 20],
    ended_at: [500, null, 25],
    user_scores: { 1: [{ name: 'quality', value: 0.2, explanation: null, step_id: 's1' } as never] },
    usage: { 2: { input_tokens: 3 } },
  },
};

describe('a big run opened from its skeleton', () => {
  it('every step is there with its tree, timing, status and user scores, and no payload yet', () => {
    const d = detailFromSkeleton(skeleton);
    expect(d.steps.map((s) => [s.step_id, s.parent_id, s.index, s.name, s.type, s.status, s.started_at, s.ended_at, s.duration_ms])).toEqual([
      ['s0', null, 0, 'agent', 'agent', 'ok', 1000, 1500, 500],
      ['s1', 's0', 1, 'lookup', 'tool', 'error', 1010, null, null],
      ['s2', 'gone', 7, 'lookup', 'tool', 'ok', 1020, 1025, 5],
    ]);
    expect(d.steps[2].usage).toEqual({ input_tokens: 3 });
    expect(d.steps[1].user_scores).toHaveLength(1);
    expect(d.steps[1]).toMatchObject({ input: null, output: null, error: null, usage: null, metadata: {} });
  });

  it('times sent as deltas (each start after the previous one, ends as durations) come out the same', () => {
    const deltas: RunSkeleton = { ...skeleton, steps: { ...skeleton.steps, time_deltas: true, started_at: [0, 10, 10], ended_at: [500, null, 5] } };
    expect(detailFromSkeleton(deltas).steps).toEqual(detailFromSkeleton(skeleton).steps);
    expect([...parentPositions(skeleton.steps)]).toEqual([-1, 0, -1]);
  });

  it('a step stamped as ending before it started lasts 0 ms, as getRun says', () => {
    const skewed: RunSkeleton = { ...skeleton, steps: { ...skeleton.steps, ended_at: [-10, null, 25] } };
    expect(detailFromSkeleton(skewed).steps[0].duration_ms).toBe(0);
  });

  it("the selected step shows its fetched payload, and another step's payload is never mixed in", () => {
    const step = detailFromSkeleton(skeleton).steps[1];
    const payload = {
      step_id: 's1',
      input: { order: 7 },
      output: null,
      error: { type: 'Timeout', message: 'timed out' },
      usage: null,
      metadata: { a: 1 },
      extra: {},
      replay_key: 'agent#0/lookup#0',
      model: 'm-1',
      replayed: true,
    } as StepPayload;
    expect(step).toMatchObject({ replay_key: '', model: null, replayed: false });
    expect(withPayload(step, payload)).toMatchObject({ input: { order: 7 }, error: { message: 'timed out' }, metadata: { a: 1 }, replay_key: 'agent#0/lookup#0', model: 'm-1', replayed: true });
    expect(withPayload(step, { ...payload, step_id: 's0' })).toBe(step);
  });
});
