import { describe, expect, it } from 'vitest';
import { loadHeldout } from '../../../bench/blame/heldout/load-heldout';
import { importFixture } from '../../../test/support/foreign-fixtures';
import { blameChecked } from '../../../test/support/blame-checked';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FOREIGN = fileURLToPath(new URL('../../../test/fixtures/foreign/', import.meta.url));

describe('tb blame --failed on any imported run', () => {
  it('every trace of the held-out corpus and every real-client fixture, asserted failed, gets ranked suspects and never "healthy"', () => {
    const runs = [
      ...loadHeldout().map((c) => c.detail),
      ...readdirSync(FOREIGN)
        .filter((f) => /\.(json|jsonl)$/.test(f))
        .flatMap((f) => importFixture(f).runs),
    ];
    expect(runs.length).toBeGreaterThan(40);
    for (const d of runs) {
      const r = blameChecked(d, { asserted: true });
      expect(r.healthy, d.run.run_id).toBe(false);
      expect(r.asserted).toBe(true);
      // Suspects are the leaf steps not already explained as symptoms of a blamed one.
      const symptoms = new Set(r.symptoms.map((s) => s.step_id));
      const leaves = d.steps.filter((s) => !d.steps.some((c) => c.parent_id === s.step_id) && s.metadata.duplicate_of === undefined && !symptoms.has(s.step_id)).length;
      expect(r.blamed.length, d.run.run_id).toBeGreaterThanOrEqual(Math.min(3, leaves));
      expect(new Set(r.blamed.map((b) => b.step_id)).size).toBe(r.blamed.length);
    }
  });
});
