import { describe, expect, it } from 'vitest';
import type { LineageEdge } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { step } from '../../../test/support/graph-steps';
import { dataFlowTitle, MAX_DATA_FLOW_EDGES, nearestShown, pairKey, selectDataFlow } from './data-flow-edges';
import { buildStepTree, visibleGraph, type StepTree } from './step-tree';


const flow = (from: string, to: string, via: LineageEdge['via'] = 'value', detail?: string): LineageEdge => ({ from, to, via, ...(detail ? { detail } : {}) });

/** What the graph shows of `tree` with the given steps collapsed (everything else open). */
function visibleOfWith(tree: StepTree, collapsed: string[], pageSize = Infinity) {
  const closed = new Set(collapsed);
  const items = visibleGraph(tree, (id) => !closed.has(id), {}, pageSize);
  const shown = new Set(items.filter((i) => i.kind === 'step').map((i) => i.id));
  return nearestShown((id) => tree.byId.has(id), (id) => tree.parentOf(id), (id) => shown.has(id));
}

// planner, researcher(query_table, summarize), writer(draft(outline)), critic
const research = buildStepTree(
  [
    ['planner', null],
    ['researcher', null],
    ['query_table', 'researcher'],
    ['summarize', 'researcher'],
    ['writer', null],
    ['draft', 'writer'],
    ['outline', 'draft'],
    ['critic', null],
  ].map(([id, parent], i) => step(id as string, parent, i)),
);

describe('data-flow edges on the step graph', () => {
  it('with everything open, each inferred flow is drawn between its own two steps', () => {
    const flows = [flow('planner', 'query_table'), flow('query_table', 'summarize'), flow('summarize', 'researcher', 'parent'), flow('researcher', 'writer')];
    const { edges, total } = selectDataFlow(flows, visibleOfWith(research, []));
    expect(edges.map((e) => [e.from, e.to, e.direct])).toEqual([
      ['planner', 'query_table', true],
      ['query_table', 'summarize', true],
      ['summarize', 'researcher', true],
      ['researcher', 'writer', true],
    ]);
    expect(total).toBe(4);
  });

  it('a flow out of a collapsed agent is drawn from the agent, and two flows landing on one pair become one edge', () => {
    const flows = [flow('query_table', 'writer'), flow('summarize', 'writer', 'state', 'key findings'), flow('planner', 'query_table')];
    const { edges } = selectDataFlow(flows, visibleOfWith(research, ['researcher']));
    expect(edges.map((e) => [e.from, e.to, e.count, e.direct])).toEqual([
      ['researcher', 'writer', 2, false],
      ['planner', 'researcher', 1, false],
    ]);
    // The merged edge still names the steps the flows really ran between.
    expect(edges[0].flows.map((f) => f.from)).toEqual(['query_table', 'summarize']);
  });

  it('a flow deep inside a collapsed subtree climbs to the nearest shown ancestor, not just one level', () => {
    const { edges } = selectDataFlow([flow('planner', 'outline')], visibleOfWith(research, ['writer']));
    expect(edges.map((e) => [e.from, e.to])).toEqual([['planner', 'writer']]);
  });

  it('flows that stay inside one collapsed subtree, and flows naming unknown steps, are not drawn', () => {
    const flows = [flow('query_table', 'summarize'), flow('summarize', 'researcher', 'parent'), flow('ghost', 'writer'), flow('planner', 'ghost')];
    expect(selectDataFlow(flows, visibleOfWith(research, ['researcher'])).edges).toEqual([]);
  });

  it('a flow already drawn as a hop of the blame lineage path is not drawn twice', () => {
    const flows = [flow('planner', 'researcher'), flow('researcher', 'writer'), flow('writer', 'critic')];
    const { edges } = selectDataFlow(flows, visibleOfWith(research, []), { skip: new Set([pairKey('planner', 'researcher'), pairKey('researcher', 'writer')]) });
    expect(edges.map((e) => [e.from, e.to])).toEqual([['writer', 'critic']]);
  });

  it('a 10,000-step run with 20,000 flows draws at most the cap, preferring flows between steps that are on screen', () => {
    // 100 agents with 100 tool calls each; the first agent is open, the rest collapsed.
    const steps: Step[] = [];
    for (let a = 0; a < 100; a++) {
      steps.push(step(`a${a}`, null, steps.length));
      for (let t = 0; t < 99; t++) steps.push(step(`a${a}.t${t}`, `a${a}`, steps.length));
    }
    const tree = buildStepTree(steps);
    const collapsed = Array.from({ length: 99 }, (_, a) => `a${a + 1}`);
    const flows: LineageEdge[] = [];
    // Across agents first (so that the engine's order alone would fill the cap with folded edges)...
    for (let a = 1; a < 100; a++) for (let b = a + 1; b < 100 && flows.length < 10_000; b++) flows.push(flow(`a${a}.t0`, `a${b}.t1`));
    // ...then between the open agent's own tool calls.
    for (let i = 0; flows.length < 20_000; i++) flows.push(flow(`a0.t${i % 99}`, `a0.t${(i * 7 + 1) % 99}`));

    const visibleOf = visibleOfWith(tree, collapsed);
    const { edges, total } = selectDataFlow(flows, visibleOf, { max: MAX_DATA_FLOW_EDGES });
    expect(total).toBeGreaterThan(MAX_DATA_FLOW_EDGES);
    expect(edges).toHaveLength(MAX_DATA_FLOW_EDGES);
    expect(new Set(edges.map((e) => pairKey(e.from, e.to))).size).toBe(edges.length);
    const direct = edges.filter((e) => e.direct).length;
    const directAvailable = new Set(flows.filter((f) => f.from.startsWith('a0.') && f.to.startsWith('a0.') && f.from !== f.to).map((f) => pairKey(f.from, f.to))).size;
    expect(direct).toBe(Math.min(directAvailable, MAX_DATA_FLOW_EDGES));
    // Every drawn end is a step on screen.
    expect(edges.every((e) => visibleOf(e.from) === e.from && visibleOf(e.to) === e.to)).toBe(true);
  });

  it('mapping a 10,000-deep chain to its one shown root is linear, not quadratic', () => {
    const n = 10_000;
    const tree = buildStepTree(Array.from({ length: n }, (_, i) => step(`s${i}`, i ? `s${i - 1}` : null, i)));
    let parentCalls = 0;
    const visibleOf = nearestShown(
      (id) => tree.byId.has(id),
      (id) => {
        parentCalls++;
        return tree.parentOf(id);
      },
      (id) => id === 's0',
    );
    for (let i = n - 1; i >= 0; i--) expect(visibleOf(`s${i}`)).toBe('s0');
    expect(parentCalls).toBeLessThan(2 * n);
  });

  it("an edge's tooltip names each flow's steps, how it was inferred and the engine's detail, and counts the rest", () => {
    const flows = Array.from({ length: 6 }, (_, i) => flow(`t${i}`, 'writer', i === 0 ? 'tool_call' : 'value', i === 0 ? 'call_1' : undefined));
    const { edges } = selectDataFlow(flows, (id) => (id.startsWith('t') ? 'agent' : id));
    expect(dataFlowTitle(edges[0], (id) => id.toUpperCase())).toBe(
      ['6 data flows', 'T0 → WRITER · tool_call: call_1', 'T1 → WRITER · value', 'T2 → WRITER · value', 'T3 → WRITER · value', '+2 more'].join('\n'),
    );
  });
});
