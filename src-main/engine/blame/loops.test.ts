import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { inferLineage } from './lineage';
import { findLoops } from './loops';
import { buildRunGraph } from './run-graph';

describe('no-progress loops', () => {
  it('a call repeated three times among 5,000 different calls of a long agent loop is a loop; one made twice is not', () => {
    const b = new TraceBuilder({ input: { task: 'check the orders' } });
    const agent = b.start('agent', 'agent', { input: { task: 'check the orders' } });
    const repeated: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      // Steps 1000, 2000 and 3000 ask for the same order; 1500 and 2500 share another one (only twice).
      const order = i % 1000 === 0 && i > 0 && i < 4000 ? 'ORD-SAME' : i === 1500 || i === 2500 ? 'ORD-TWICE' : `ORD-${i}`;
      const id = b.step('get_order', 'tool', { parent: agent, input: { order_id: order }, output: { order_id: order, status: 'settled' } });
      if (order === 'ORD-SAME') repeated.push(id);
    }
    b.end(agent, { output: 'done' });
    const d = b.finish('ok', 'done').detail();
    const g = buildRunGraph(d);
    const loops = findLoops(g, inferLineage(g, DEFAULT_SETTINGS), DEFAULT_SETTINGS);
    expect(loops.map((l) => ({ name: l.name, ids: l.occurrences.map((p) => g.steps[p].step_id) }))).toEqual([{ name: 'get_order', ids: repeated }]);
  });
});
