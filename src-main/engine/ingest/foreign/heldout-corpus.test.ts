/**
 * The held-out blame corpus (bench/blame/heldout) must keep importing through
 * the real foreign-format importers: one run per file, no import errors, and
 * every labelled culprit/alternate names a step that exists in that run.
 * This test checks structure only; it never runs blame.
 */
import { describe, expect, it } from 'vitest';
import { findLabelledStep, heldoutLabels, loadHeldout, stepMatches } from '../../../../bench/blame/heldout/load-heldout';

const CLASSES = new Set([
  'give-up', 'refusal', 'guardrail', 'code-error', 'ungrounded-number', 'inconsistent-samples', 'expected-missing',
  'hidden-error', 'generic-retrieval', 'plan-ignored', 'fabrication', 'wrong-tool', 'dropped-info', 'healthy',
]);

describe('held-out blame corpus', () => {
  const cases = loadHeldout();

  it('has 36-48 labelled files, each importing as exactly one run', () => {
    expect(cases.length).toBeGreaterThanOrEqual(36);
    expect(cases.length).toBeLessThanOrEqual(48);
    expect(Object.keys(heldoutLabels()).length).toBe(cases.length);
    for (const c of cases) expect(c.detail.steps.length, c.file).toBeGreaterThan(0);
  });

  it('uses only known classes, with at least 2 files per failure class and 8 healthy runs', () => {
    const counts = new Map<string, number>();
    for (const c of cases) {
      expect(CLASSES.has(c.cls), `${c.file}: class ${c.cls}`).toBe(true);
      counts.set(c.cls, (counts.get(c.cls) ?? 0) + 1);
    }
    for (const cls of CLASSES) expect(counts.get(cls) ?? 0, cls).toBeGreaterThanOrEqual(cls === 'healthy' ? 8 : 2);
  });

  it.each(cases.map((c) => [c.file, c] as const))('%s: culprit and alternates name steps of the run', (_file, c) => {
    if (c.cls === 'healthy') {
      expect(c.culprit).toBe('');
      return;
    }
    expect(c.culprit).not.toBe('');
    const occurrence = c.culpritOccurrence ?? 0;
    const matches = c.detail.steps.filter((s) => stepMatches(s, c.culprit));
    expect(matches.length, `no step named ${JSON.stringify(c.culprit)}`).toBeGreaterThan(occurrence);
    if (c.culpritOccurrence === undefined) expect(matches.length, `${c.culprit} repeats; culprit_occurrence is required`).toBe(1);
    expect(findLabelledStep(c.detail, c.culprit, occurrence)).toBeDefined();
    for (const alt of c.alternates) expect(c.detail.steps.some((s) => stepMatches(s, alt)), `alternate ${JSON.stringify(alt)}`).toBe(true);
  });

  it('has realistic timing: every step ends, and children lie inside their parents', () => {
    for (const c of cases) {
      const byId = new Map(c.detail.steps.map((s) => [s.step_id, s]));
      for (const s of c.detail.steps) {
        expect(s.ended_at, `${c.file}: ${s.name} has no end`).not.toBeNull();
        const parent = s.parent_id ? byId.get(s.parent_id) : undefined;
        if (!parent) continue;
        expect(s.started_at, `${c.file}: ${s.name} starts before its parent`).toBeGreaterThanOrEqual(parent.started_at);
        expect(s.ended_at!, `${c.file}: ${s.name} ends after its parent`).toBeLessThanOrEqual(parent.ended_at!);
      }
    }
  });
});
