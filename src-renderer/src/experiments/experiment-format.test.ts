import { describe, expect, it } from 'vitest';
import type { ArmSummary, ExperimentSummary } from '../../../src-shared/experiments';
import { armsLine, findingSentence, formatEffect, formatInterval, formatP, formatPercent } from './experiment-format';

function arm(passed: number, trials: number): ArmSummary {
  return {
    passed,
    trials,
    rate: trials ? passed / trials : null,
    wilson: [0, 1],
    failed: trials - passed,
    crashed: 0,
    timeouts: 0,
    diverged: 0,
    unfinished: 0,
    tokens: 0,
    cost_usd: 0,
    duration_ms: 0,
    calls: 0,
    edit_not_applied: 0,
  };
}

function experiment(t: ArmSummary, c: ArmSummary, p: number, status: ExperimentSummary['status'] = 'done'): ExperimentSummary {
  return {
    experiment_id: 'exp-1',
    run_id: 'run-1',
    pipeline: 'p',
    at: 'planner',
    fork_step_key: 'planner#0',
    label: null,
    status,
    stop_reason: null,
    edit: { kind: 'output', output: 1 },
    oracle: { kind: 'verdict' },
    n: 8,
    parallel: 2,
    timeout_s: 300,
    control: c,
    treatment: t,
    p_value: p,
    effect: t.rate !== null && c.rate !== null ? t.rate - c.rate : null,
    diverged: 0,
    crashed: 0,
    timeouts: 0,
    saved: { calls: 0, tokens: 0 },
    edit_not_applied: t.edit_not_applied + c.edit_not_applied,
    warnings: [],
    small_n: true,
    estimate: null,
    created_at: 0,
    ended_at: null,
    group_id: null,
  };
}

describe('experiment numbers as they read on screen', () => {
  it('p-values keep two significant digits; tiny ones go scientific', () => {
    expect(formatP(0.3333333333333335)).toBe('0.33');
    expect(formatP(0.0001554001554)).toBe('0.00016');
    expect(formatP(0.0000155)).toBe('1.6×10⁻⁵');
    expect(formatP(1)).toBe('1');
  });

  it('rates, intervals and effects are in percent and points', () => {
    expect(formatPercent(0.9375)).toBe('94%');
    expect(formatPercent(null)).toBe('—');
    expect(formatInterval([0.3424, 1])).toBe('34–100%');
    expect(formatEffect(1)).toBe('+100 pts');
    expect(formatEffect(-0.25)).toBe('−25 pts');
    expect(formatEffect(null)).toBe('—');
  });

  it('a branch reads treatment first, as passes over judged trials', () => {
    expect(armsLine(experiment(arm(8, 8), arm(0, 8), 0.000155))).toBe('treatment 8/8 · control 0/8');
  });

  it('a significant win is stated with its p-value', () => {
    expect(findingSentence(experiment(arm(8, 8), arm(0, 8), 0.0001554001554))).toBe('The edit raised the success rate: 100% with the edit against 0% without it (p = 0.00016).');
  });

  it('a 2-of-2 against 0-of-2 split is not called a proven fix', () => {
    expect(findingSentence(experiment(arm(2, 2), arm(0, 2), 0.33))).toMatch(/could be chance/);
  });

  it('an edit that changed nothing says so', () => {
    expect(findingSentence(experiment(arm(0, 8), arm(0, 8), 1))).toMatch(/^The edit made no difference/);
  });

  it('0/5 against 0/5 after an edit the pipeline never consumed is not read as "no difference"', () => {
    const notApplied = { ...arm(0, 5), edit_not_applied: 5 };
    expect(findingSentence(experiment(notApplied, arm(0, 5), 1))).toMatch(/^The edit was never applied/);
  });

  it('before both arms have a judged trial there is no comparison yet', () => {
    expect(findingSentence(experiment(arm(1, 1), arm(0, 0), 1, 'running'))).toBe('Waiting for judged trials in both arms.');
  });
});
