import { describe, expect, it } from 'vitest';
import type { RunDetail, Step } from '../../../src-shared/model';
import { parseReplayPlan } from '../../../src-shared/replay-plan';
import { buildReplayPlan } from './build-replay-plan';

const step = (index: number, key: string, extra: Partial<Step> = {}): Step => ({
  run_id: 'r1', step_id: `s${index}`, parent_id: null, index, name: key.split('/').at(-1)!.split('#')[0], type: 'tool', replay_key: key,
  status: 'ok', input: null, output: `out${index}`, error: null, started_at: index, ended_at: index + 1, duration_ms: 1, model: null,
  usage: null, metadata: {}, user_scores: [], replayed: false, extra: {}, ...extra,
});

const detail = (steps: Step[]): RunDetail => ({
  run: { run_id: 'r1', pipeline: 'p', extra: { nondeterminism: { random: [0.5] } } } as unknown as RunDetail['run'],
  steps,
});

describe('replay plans', () => {
  it('a plan holds the prefix up to the fork step, with fingerprints, and leaves later and unfinished steps out', () => {
    const plan = buildReplayPlan(
      detail([
        step(0, 'a#0', { extra: { input_fingerprint: 'sha256:aa', async: true }, model: 'm1' }),
        step(1, 'b#0', { status: 'running' }),
        step(2, 'c#0', { metadata: { side_effect: true } }),
        step(3, 'd#0', { model: 'm2' }),
      ]),
      { experimentId: 'e', arm: 'control', trial: 2, forkStepKey: 'c#0', edit: { kind: 'output', output: 1 }, inbox: '/tmp/inbox' },
    );
    expect(Object.keys(plan.steps)).toEqual(['a#0', 'c#0']);
    expect(plan.steps['a#0']).toMatchObject({ input_fingerprint: 'sha256:aa', async: true, output: 'out0', model: 'm1' });
    expect(plan.steps['c#0'].metadata).toEqual({ side_effect: true });
    expect(plan.recorded_models).toEqual({ 'a#0': 'm1', 'd#0': 'm2' });
    expect(plan.nondeterminism).toEqual({ '': { random: [0.5] } });
    expect(plan).toMatchObject({ mode: 'strict', side_effects: 'require-mock', pipeline: 'p', source_run_id: 'r1' });
    expect(parseReplayPlan(JSON.stringify(plan))).toEqual(JSON.parse(JSON.stringify(plan)));
  });

  it('a step whose replay key is "__proto__" (any string a trace holds) is in the plan like any other', () => {
    const plan = buildReplayPlan(detail([step(0, '__proto__', { model: 'm1', metadata: { nondeterminism: { random: [0.25] } } }), step(1, 'b#0')]), {
      experimentId: 'e', arm: 'control', trial: 0, forkStepKey: 'b#0', edit: { kind: 'output', output: 1 }, inbox: '/i',
    });
    const text = JSON.stringify(plan);
    for (const part of [plan.steps, plan.recorded_models ?? {}, plan.nondeterminism ?? {}]) expect(Object.hasOwn(part, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(plan.steps, '__proto__')?.value).toMatchObject({ output: 'out0', model: 'm1' });
    const parsed = parseReplayPlan(text);
    expect(Object.hasOwn(parsed.steps, '__proto__')).toBe(true);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('forking at a step the run does not have is refused with the key in the message', () => {
    expect(() => buildReplayPlan(detail([step(0, 'a#0')]), { experimentId: 'e', arm: 'treatment', trial: 0, forkStepKey: 'zz#0', edit: { kind: 'instructions', instructions: '' }, inbox: '' })).toThrow(/zz#0/);
  });

  it('a malformed plan file is rejected naming the bad field', () => {
    expect(() => parseReplayPlan('not json')).toThrow(/not JSON/);
    const good = buildReplayPlan(detail([step(0, 'a#0')]), { experimentId: 'e', arm: 'treatment', trial: 0, forkStepKey: 'a#0', edit: { kind: 'output', output: null }, inbox: '/i' });
    expect(() => parseReplayPlan(JSON.stringify({ ...good, arm: 'both' }))).toThrow(/"arm"/);
    expect(() => parseReplayPlan(JSON.stringify({ ...good, v: 2 }))).toThrow(/"v"/);
    expect(() => parseReplayPlan(JSON.stringify({ ...good, edit: { kind: 'rewrite' } }))).toThrow(/edit.kind/);
    expect(() => parseReplayPlan(JSON.stringify({ ...good, steps: { 'a#0': { status: 'ok' } } }))).toThrow(/steps.a#0.index/);
  });
});
