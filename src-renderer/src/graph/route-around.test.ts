import { describe, expect, it } from 'vitest';
import { routeAround } from './route-around';

/** The x of the vertical run of a routed path (its third point). */
const laneOf = (d: string) => Number(d.split(' ')[2].slice(1).split(',')[0]);

describe('edges routed around nodes', () => {
  it("a lineage hop runs in a lane right of every node between its ends, never through a node's text", () => {
    const from = { x: 0, y: 0, width: 200, height: 40 };
    const wide = { x: 100, y: 60, width: 400, height: 40 };
    const to = { x: 0, y: 120, width: 200, height: 40 };
    const d = routeAround(from, to, [from, wide, to]);
    expect(laneOf(d)).toBeGreaterThan(500);
    expect(d.startsWith('M200,12')).toBe(true);
    expect(d.endsWith('L200,148')).toBe(true);
  });

  it('nodes above or below the two ends do not push the lane out, and parallel edges get their own lanes', () => {
    const from = { x: 0, y: 100, width: 200, height: 40 };
    const to = { x: 0, y: 200, width: 200, height: 40 };
    const far = { x: 0, y: 500, width: 900, height: 40 };
    const a = routeAround(from, to, [from, to, far], 0);
    const b = routeAround(from, to, [from, to, far], 1);
    expect(laneOf(a)).toBeLessThan(300);
    expect(laneOf(b)).toBeGreaterThan(laneOf(a));
  });
});
