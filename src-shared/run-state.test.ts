import { describe, expect, it } from 'vitest';
import type { BlameResult, BlamedStep } from './analysis';
import { runState, stepRoles } from './run-state';

const ended = { status: 'ok' as const, verdict: null, steps: 4 };

function blame(over: Partial<BlameResult>): BlameResult {
  return { run_id: 'r', healthy: true, failure: null, blamed: [], co_blamed: [], symptoms: [], lineage_path: [], step_scores: [], ...over };
}

function finding(step_id: string): BlamedStep {
  return { step_id, name: step_id, type: 'tool', index: 0, score: 0.8, confidence: 'high', reason: 'r', evidence: [], rule: 'x' };
}

describe('one state for a run, wherever it is shown', () => {
  it('an imported run that ended "ok" but whose blame found an unrecovered error reads failed, not healthy', () => {
    const b = blame({
      healthy: false,
      failure: { kind: 'unrecovered-error', description: 'search_web raised UpstreamTimeout and nothing recovered.' },
      detection: { status: 'failed', kind: 'unrecovered-error', description: 'search_web raised UpstreamTimeout and nothing recovered.', signals: [], asserted: false },
    });
    const s = runState(ended, b);
    expect(s.state).toBe('failed');
    expect(s.basis).toBe('detected');
    expect(s.reason).toContain('UpstreamTimeout');
    // The runs list carries the detector's answer, not the whole result: same state.
    expect(runState({ ...ended, healthy: false, detection: 'failed' }).state).toBe('failed');
  });

  it('before blame has looked, a run that ended "ok" is "not checked", never healthy by default', () => {
    const s = runState(ended, null);
    expect(s.state).toBe('unknown');
    expect(s.label).toBe('not checked');
  });

  it("the user's assertion wins over a detector that saw nothing", () => {
    expect(runState(ended, blame({ healthy: false, asserted: true, detection: { status: 'failed', kind: 'asserted', description: '', signals: [], asserted: true } })).basis).toBe('asserted');
    expect(runState({ ...ended, asserted: true, detection: 'healthy' }).state).toBe('failed');
  });

  it('weak signs of failure read "possibly failed" in header and list alike', () => {
    const b = blame({ detection: { status: 'unknown', kind: 'final-gives-up', description: 'The answer gives up.', signals: [], asserted: false } });
    expect(runState(ended, b)).toMatchObject({ state: 'unknown', label: 'possibly failed' });
    expect(runState({ ...ended, healthy: true, detection: 'unknown' })).toMatchObject({ state: 'unknown', label: 'possibly failed' });
  });

  it('a run whose file had a bad line is not called healthy: it points at its import errors', () => {
    const healthy = blame({ detection: { status: 'healthy', kind: null, description: 'No sign of failure.', signals: [], asserted: false } });
    expect(runState(ended, healthy).state).toBe('healthy');
    const s = runState({ ...ended, import_problems: { errors: 1, warnings: 0 } }, healthy);
    expect(s).toMatchObject({ state: 'unknown', basis: 'import', label: 'import errors' });
    // Warnings alone (a truncated field) do not take the verdict away.
    expect(runState({ ...ended, import_problems: { errors: 0, warnings: 3 } }, healthy).state).toBe('healthy');
    // A run with no step at all has nothing to call healthy.
    expect(runState({ ...ended, steps: 0 }, healthy)).toMatchObject({ state: 'unknown', label: 'no steps' });
  });

  it('without blame, a run-level error or a failing verdict is failed, and a growing run is running', () => {
    expect(runState({ status: 'error', verdict: null, steps: 2, error: { type: 'ValueError', message: 'bad' } }).reason).toContain('ValueError');
    expect(runState({ status: 'ok', verdict: { pass: false, detail: 'wrong city' }, steps: 2 }).state).toBe('failed');
    expect(runState({ status: 'running', verdict: null, steps: 2, healthy: false }).state).toBe('running');
  });
});

describe("each step's part in blame", () => {
  it('the top finding is blamed; a runner-up the engine did not call a tie is a suspect, not co-blamed', () => {
    const roles = stepRoles(blame({ healthy: false, blamed: [finding('a'), finding('b')], co_blamed: [] }));
    expect(roles.get('a')).toBe('blamed');
    expect(roles.get('b')).toBe('suspect');
    expect([...roles.values()]).not.toContain('co-blamed');
  });

  it("co-blamed only where the engine's co_blamed says so; symptoms and recovered steps keep their parts", () => {
    const roles = stepRoles(
      blame({
        healthy: false,
        blamed: [finding('a')],
        co_blamed: [finding('c')],
        symptoms: [{ step_id: 's', name: 's', caused_by: 'a', reason: '' }],
        recovered: [{ step_id: 'x', name: 'x', by: null, reason: '' }],
      }),
    );
    expect(Object.fromEntries(roles)).toEqual({ a: 'blamed', c: 'co-blamed', s: 'symptom', x: 'recovered' });
  });
});
