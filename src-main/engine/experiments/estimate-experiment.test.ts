import { describe, expect, it } from 'vitest';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { StepType } from '../../../src-shared/trace-format';
import { estimateExperiment, partitionSteps } from './estimate-experiment';

function step(index: number, key: string, type: StepType, tokens = 0): Step {
  const name = key.split('/').at(-1)!.split('#')[0];
  return {
    run_id: 'r', step_id: `s${index}`, parent_id: null, index, name, type, replay_key: key, status: 'ok',
    input: null, output: { i: index }, error: null, started_at: index, ended_at: index + 1, duration_ms: 1,
    model: null, usage: tokens ? { total_tokens: tokens, cost_usd: tokens / 1000 } : null, metadata: {}, user_scores: [], replayed: false,
    extra: { input_fingerprint: 'sha256:x' },
  };
}

// planner → researcher (agent: query tool, summarize llm) → writer → critic
const steps = [
  step(0, 'planner#0', 'llm', 100),
  step(1, 'researcher#0', 'agent'),
  step(2, 'researcher#0/query#0', 'tool'),
  step(3, 'researcher#0/summarize#0', 'llm', 50),
  step(4, 'writer#0', 'llm', 30),
  step(5, 'critic#0', 'llm', 20),
];
const detail = { run: { run_id: 'r', ended_at: 10, status: 'error', provenance: null } as unknown as RunDetail['run'], steps } as RunDetail;
const keys = (xs: Step[]) => xs.map((s) => s.replay_key);

describe('what a fork re-runs and what it replays', () => {
  it('an output edit inside an agent replays the steps before it, runs the agent around it, and re-runs what follows', () => {
    const p = partitionSteps(detail, steps[3], { kind: 'output', output: [] });
    expect(keys(p.replayed)).toEqual(['planner#0', 'researcher#0/query#0']);
    expect(keys(p.live)).toEqual(['writer#0', 'critic#0']);
  });

  it('an output edit of an agent step replaces it whole: its children never run', () => {
    const p = partitionSteps(detail, steps[1], { kind: 'output', output: { cities: [] } });
    expect(keys(p.replayed)).toEqual(['planner#0']);
    expect(keys(p.live)).toEqual(['writer#0', 'critic#0']);
  });

  it('an instructions edit runs the fork step itself and its children live', () => {
    const p = partitionSteps(detail, steps[1], { kind: 'instructions', instructions: 'be careful' });
    expect(keys(p.live)).toEqual(['researcher#0', 'researcher#0/query#0', 'researcher#0/summarize#0', 'writer#0', 'critic#0']);
  });

  it('the estimate multiplies the live work by 2N and counts what replay saves', () => {
    const entry = { command: ['node', 'x.js'] };
    const e = estimateExperiment(detail, steps[4], { kind: 'output', output: 'new answer' }, 4, entry, true);
    expect(e).toMatchObject({ downstream_steps: 1, replayed_steps: 4, trials: 8, approval_needed: true });
    expect(e.per_trial).toMatchObject({ calls: 1, tokens: 20 });
    expect(e.total).toMatchObject({ calls: 8, tokens: 160 });
    expect(e.saved).toMatchObject({ calls: 3 * 8, tokens: 150 * 8 });
    expect(e.total.cost_usd).toBeCloseTo(0.16, 10);
    expect(e.warnings).toEqual([]);
    const same = estimateExperiment(detail, steps[4], { kind: 'output', output: { i: 4 } }, 1, entry, false);
    expect(same.warnings.join()).toMatch(/equals the recorded one/);
  });
});
