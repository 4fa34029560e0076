import { describe, expect, it } from 'vitest';
import { layoutGraph, lineageEdges, phasesOf, type TimeOf } from './layout-graph';
import type { GraphItem } from './step-tree';

const step = (id: string, parent: string | null): GraphItem => ({ kind: 'step', id, parent, expanded: true, hiddenBelow: 0 });
const times = (t: Record<string, [number, number]>): TimeOf => (id) => (t[id] ? { start: t[id][0], end: t[id][1] } : null);

describe('graph layout', () => {
  it('siblings that ran one after another read top to bottom in start order, joined by sequence edges; a parent holds its first child', () => {
    const items = [step('r', null), step('a', 'r'), step('a1', 'a'), step('a2', 'a'), step('b', 'r'), step('c', 'r'), step('c1', 'c')];
    const t = times({ r: [0, 100], a: [0, 30], a1: [0, 10], a2: [10, 30], b: [30, 60], c: [60, 100], c1: [60, 90] });
    const { positions, sequence, contains } = layoutGraph(items, t);
    const y = (id: string) => positions.get(id)!.y;
    expect(y('a')).toBeLessThan(y('b'));
    expect(y('b')).toBeLessThan(y('c'));
    expect(y('a1')).toBeLessThan(y('a2'));
    expect(sequence).toEqual([
      ['a', 'b'],
      ['b', 'c'],
      ['a1', 'a2'],
    ]);
    expect(contains).toEqual([
      ['r', 'a'],
      ['a', 'a1'],
      ['c', 'c1'],
    ]);
  });

  it("a step's children hang below it and above its next sibling, so the next step reads after all it did", () => {
    const items = [step('agent', null), step('llm', 'agent'), step('parse', 'agent'), step('tools', null)];
    const t = times({ agent: [0, 50], llm: [0, 40], parse: [40, 50], tools: [50, 80] });
    const { positions } = layoutGraph(items, t);
    const y = (id: string) => positions.get(id)!.y;
    expect(y('llm')).toBeGreaterThan(y('agent'));
    expect(y('parse')).toBeGreaterThan(y('llm'));
    expect(y('tools')).toBeGreaterThan(y('parse'));
  });

  it('siblings whose times overlap ran in parallel: side by side on one rank, each joined to the step before and after', () => {
    const items = [step('plan', null), step('search_a', null), step('search_b', null), step('merge', null)];
    const t = times({ plan: [0, 10], search_a: [10, 50], search_b: [12, 40], merge: [50, 60] });
    const { positions, sequence } = layoutGraph(items, t);
    const p = (id: string) => positions.get(id)!;
    expect(p('search_a').y).toBe(p('search_b').y);
    expect(p('search_a').x).not.toBe(p('search_b').x);
    expect(p('merge').y).toBeGreaterThan(p('search_a').y);
    expect(sequence).toEqual([
      ['plan', 'search_a'],
      ['plan', 'search_b'],
      ['search_a', 'merge'],
      ['search_b', 'merge'],
    ]);
  });

  it('phases group steps by overlapping time in start order; untimed stubs come last on their own', () => {
    const t = times({ a: [0, 10], b: [5, 20], c: [15, 30], d: [30, 40] });
    expect(phasesOf(['a', 'b', 'c', 'd', 'more'], t)).toEqual([['a', 'b', 'c'], ['d'], ['more']]);
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
