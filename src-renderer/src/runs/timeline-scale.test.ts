import { describe, expect, it } from 'vitest';
import { tickLabel, timelineScale, timelineTicks } from './timeline-scale';

const H = 3_600_000;

describe('the runs timeline axis', () => {
  it('cuts a long idle gap so runs of seconds spread over two days are bars, not 1 px ticks', () => {
    const runs = [
      { from: 0, to: 5_000 },
      { from: 10_000, to: 20_000 },
      { from: 38 * H, to: 38 * H + 8_000 },
    ];
    const scale = timelineScale(runs, 0, 38 * H + 8_000);
    expect(scale.breaks).toHaveLength(1);
    expect(scale.breaks[0]).toMatchObject({ from: 20_000, to: 38 * H });
    // On a linear axis the 5 s run would be 0.004 % wide; here it is several percent.
    expect(scale.x(5_000) - scale.x(0)).toBeGreaterThan(10);
    expect(scale.x(38 * H + 8_000)).toBeCloseTo(100);
    // Order is kept across the break.
    expect(scale.x(20_000)).toBeLessThan(scale.x(19 * H));
    expect(scale.x(19 * H)).toBeLessThan(scale.x(38 * H));
  });

  it('keeps a linear axis when runs fill the span, or when the gaps are short next to the runs, and maps the ends to 0 and 100', () => {
    // Runs of ~4 ms with 11 ms between them: nothing worth cutting.
    expect(timelineScale([{ from: 0, to: 4 }, { from: 15, to: 19 }, { from: 30, to: 34 }], 0, 34).breaks).toEqual([]);
    const runs = Array.from({ length: 20 }, (_, i) => ({ from: i * 1_000, to: i * 1_000 + 900 }));
    const scale = timelineScale(runs, 0, 19_900);
    expect(scale.breaks).toEqual([]);
    expect(scale.x(0)).toBe(0);
    expect(scale.x(9_950)).toBeCloseTo(50);
    expect(scale.x(19_900)).toBeCloseTo(100);
  });

  it('places ticks in the time that is drawn, never inside a break, labelled as precisely as the span needs', () => {
    const scale = timelineScale([{ from: 0, to: 10_000 }, { from: 30 * H, to: 30 * H + 10_000 }], 0, 30 * H + 10_000);
    const ticks = timelineTicks(scale);
    for (const t of ticks) expect(scale.breaks.some((b) => t > b.from && t < b.to)).toBe(false);
    expect(ticks).toContain(30 * H);
    const d = new Date(2026, 11, 1, 18, 5, 40, 123).getTime();
    expect(tickLabel(d, 900, false)).toBe('18:05:40.123');
    expect(tickLabel(d, 2 * H, false)).toBe('18:05:40');
    expect(tickLabel(d, 40 * H, true)).toBe('12-01 18:05:40');
  });
});
