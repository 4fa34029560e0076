import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { withScratch } from './scratch-arrays';
import { buildRunGraph, siblingsOf } from './run-graph';

describe('the run graph', () => {
  it('lists each step’s children in step order, and a root’s siblings are the roots, inside a blame’s scratch arrays too', () => {
    const b = new TraceBuilder({ input: { task: 'plan and act' } });
    const agent = b.start('agent', 'agent', { input: { task: 'plan and act' } });
    const plan = b.start('planner', 'agent', { parent: agent, input: 'plan' });
    b.step('llm_a', 'llm', { parent: plan, input: 'a', output: 'x' });
    b.step('llm_b', 'llm', { parent: plan, input: 'b', output: 'y' });
    b.end(plan, { output: 'planned' });
    b.step('act', 'tool', { parent: agent, input: { q: 1 }, output: { ok: true } });
    b.end(agent, { output: 'done' });
    b.step('after', 'generic', { input: 'z', output: 'z' });
    const d = b.finish('ok', 'done').detail();
    const names = (ps: ArrayLike<number>) => Array.from(ps, (p) => d.steps[p].name);
    const check = (): void => {
      const g = buildRunGraph(d);
      const at = (name: string) => d.steps.findIndex((s) => s.name === name);
      expect(names(g.children.view(at('agent')))).toEqual(['planner', 'act']);
      expect(names(g.children.view(at('planner')))).toEqual(['llm_a', 'llm_b']);
      expect(g.children.count(at('act'))).toBe(0);
      expect(names(siblingsOf(g, at('llm_b')))).toEqual(['llm_a', 'llm_b']);
      expect(names(siblingsOf(g, at('after')))).toEqual(['agent', 'after']);
    };
    check();
    // Twice in a blame's scratch arrays: the second graph reuses (zeroed) the cells of the first.
    withScratch(check);
    withScratch(check);
  });
});
