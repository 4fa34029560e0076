import { describe, expect, it } from 'vitest';
import { float64Cells, int32Cells, withScratch } from './scratch-arrays';
import { IntMap } from './int-map';
import { blameRun } from './blame-run';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { syntheticRun } from '../../../bench/blame/synthetic-run';

describe('scratch arrays', () => {
  it('a blame reuses the arrays of the one before, zeroed: the same run blamed between two others gives the same result', () => {
    const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
    const a = syntheticRun(3_000);
    const b = syntheticRun(5_000);
    const first = JSON.stringify(blameRun(a, ctx));
    blameRun(b, ctx);
    expect(JSON.stringify(blameRun(a, ctx))).toBe(first);
  });

  it('inside a blame an array comes back zeroed from the last one; outside one, every array is new', () => {
    let kept: Int32Array | null = null;
    withScratch(() => {
      const m = new IntMap(100);
      m.set(7, 42);
      kept = int32Cells(4096);
      kept.fill(9);
    });
    withScratch(() => {
      const again = int32Cells(4096);
      expect(again).toBe(kept);
      expect(again.every((v) => v === 0)).toBe(true);
      // A table made now starts empty, though its cells held a key in the last blame.
      expect(new IntMap(100).get(7, -1)).toBe(-1);
    });
    expect(int32Cells(4096)).not.toBe(kept);
  });

  it('float arrays are reused the same way, and never handed out as an int array of the same length', () => {
    let kept: Float64Array | null = null;
    withScratch(() => {
      kept = float64Cells(512);
      kept.fill(1.5);
      int32Cells(512).fill(7);
    });
    withScratch(() => {
      const again = float64Cells(512);
      expect(again).toBe(kept);
      expect(again.every((v) => v === 0)).toBe(true);
      const ints = int32Cells(512);
      expect(ints).toBeInstanceOf(Int32Array);
      expect(ints.every((v) => v === 0)).toBe(true);
    });
    expect(float64Cells(512)).not.toBe(kept);
  });
});
