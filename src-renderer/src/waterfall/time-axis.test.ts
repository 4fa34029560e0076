import { describe, expect, it } from 'vitest';
import { step } from '../../../test/support/graph-steps';
import { axisTicks, barGeometry, endOf, hasRealTiming, rangeFromDrag, runSpan } from './time-axis';

const at = (id: string, start: number, end: number | null) => ({ ...step(id, null, 0), started_at: start, ended_at: end });

describe('waterfall time axis', () => {
  it('a run whose steps ran at different times and took time opens on the waterfall; one stamped with a single instant does not', () => {
    expect(hasRealTiming([at('a', 1000, 1500), at('b', 1200, 1300)])).toBe(true);
    expect(hasRealTiming([at('a', 1000, 1000), at('b', 1000, 1000)])).toBe(false);
    expect(hasRealTiming([at('a', 1000, null), at('b', 2000, null)])).toBe(false);
    expect(hasRealTiming([at('a', 1000, 1500)])).toBe(false);
  });

  it('the axis spans first start to last end, and a step with no end runs to the end of the run', () => {
    const span = runSpan([at('a', 1000, 1500), at('b', 1200, null), at('c', 1800, 2600)]);
    expect(span).toEqual({ from: 1000, to: 2600 });
    expect(endOf(at('b', 1200, null), span.to)).toBe(2600);
  });

  it('ticks fall on round offsets from the run start with readable labels', () => {
    const ticks = axisTicks({ from: 0, to: 10_000 }, 0, 5);
    expect(ticks.map((t) => t.label)).toEqual(['0', '2 s', '4 s', '6 s', '8 s', '10 s']);
    expect(ticks[1].at).toBeCloseTo(0.2);
    const zoomed = axisTicks({ from: 1250, to: 1300 }, 0, 5);
    expect(zoomed[0].label).toBe('1.25 s');
    expect(axisTicks({ from: 0, to: 40 }, 0, 4).map((t) => t.label)).toEqual(['0', '10 ms', '20 ms', '30 ms', '40 ms']);
  });

  it('a bar is clipped to the zoomed range and disappears outside it', () => {
    const view = { from: 100, to: 200 };
    expect(barGeometry(50, 150, view)).toEqual({ left: 0, width: 0.5 });
    expect(barGeometry(120, 140, view)).toEqual({ left: 0.2, width: 0.2 });
    expect(barGeometry(250, 300, view)).toBeNull();
  });

  it('dragging across the axis zooms to the dragged part, whichever way the drag went', () => {
    expect(rangeFromDrag({ from: 0, to: 1000 }, 0.6, 0.2)).toEqual({ from: 200, to: 600 });
  });
});
