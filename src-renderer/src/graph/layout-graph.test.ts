import { describe, expect, it } from 'vitest';
import { layoutGraph, lineageEdges } from './layout-graph';
import type { GraphItem } from './step-tree';

const step = (id: string, parent: string | null): GraphItem => ({ kind: 'step', id, parent, expanded: true, hiddenBelow: 0 });

describe('graph layout', () => {
  it('siblings read top to bottom in start order, children to the right of their parent', () => {
    const items = [step('r', null), step('a', 'r'), step('a1', 'a'), step('a2', 'a'), step('b', 'r'), step('c', 'r'), step('c1', 'c')];
    const pos = layoutGraph(items);
    const y = (id: string) => pos.get(id)!.y;
    expect(y('a')).toBeLessThan(y('b'));
    expect(y('b')).toBeLessThan(y('c'));
    expect(y('a1')).toBeLessThan(y('a2'));
    expect(pos.get('a')!.x).toBeGreaterThan(pos.get('r')!.x);
    expect(pos.get('a1')!.x).toBeGreaterThan(pos.get('a')!.x);
  });

  it('several root steps also read top to bottom in start order', () => {
    const pos = layoutGraph([step('planner', null), step('researcher', null), step('query', 'researcher'), step('writer', null), step('critic', null)]);
    const ys = ['planner', 'researcher', 'writer', 'critic'].map((id) => pos.get(id)!.y);
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    expect(pos.get('query')!.x).toBeGreaterThan(pos.get('researcher')!.x);
    // A root without children stays in the roots' column, not pushed out with the leaves.
    expect(new Set(['planner', 'researcher', 'writer', 'critic'].map((id) => pos.get(id)!.x)).size).toBe(1);
  });

  it('a lineage hop into a collapsed subtree is drawn to its nearest shown ancestor', () => {
    const shown = new Set(['retrieve', 'loop', 'answer']);
    const parents: Record<string, string[]> = { inner: ['loop', 'root'] };
    expect(lineageEdges(['retrieve', 'inner', 'answer'], (id) => shown.has(id), (id) => parents[id] ?? [])).toEqual([
      ['retrieve', 'loop'],
      ['loop', 'answer'],
    ]);
  });
});
