import { describe, expect, it } from 'vitest';
import { evaluateAccuracy, loadScenarios } from '../../../bench/blame/run-blame-bench';

describe('the blame scenario corpus (bench/blame/scenarios)', () => {
  it('holds at least 60 labelled traces across the categories of the issue', () => {
    const runs = loadScenarios();
    expect(runs.length).toBeGreaterThanOrEqual(60);
    const cats = new Set(runs.map((r) => r.category));
    for (const c of ['retrieval', 'llm', 'tool', 'cascading', 'lineage', 'recovered', 'multi-agent', 'loops', 'orphaned', 'healthy']) expect(cats).toContain(c);
    expect(runs.some((r) => r.detail.steps.length >= 100)).toBe(true);
  });

  it('every labelled failure blames its expected step first, healthy runs stay silent, and every quote is verbatim', () => {
    const r = evaluateAccuracy();
    expect(r.misses).toEqual([]);
    expect(r.total.hit1).toBe(r.total.failures);
    expect(r.total.falseAlarms).toBe(0);
    expect(r.notVerbatim).toBe(0);
    expect(r.duplicateBlamed).toBe(0);
  });
});
