import { describe, expect, it } from 'vitest';
import type { Step } from '../../../src-shared/model';
import { step } from '../../../test/support/graph-steps';
import { buildStepTree, defaultExpanded, holdsFailure, loopFoldId, navigateGraph, visibleGraph, visibleRows } from './step-tree';


/** root → `loops` iterations → `per` leaves each. */
function loopRun(loops: number, per: number): Step[] {
  const steps = [step('root', null, 0)];
  for (let i = 0; i < loops; i++) {
    steps.push(step(`it${i}`, 'root', steps.length));
    for (let j = 0; j < per; j++) steps.push(step(`it${i}.${j}`, `it${i}`, steps.length));
  }
  return steps;
}

describe('step tree', () => {
  it('children keep start order even when the trace lists them out of order', () => {
    const tree = buildStepTree([step('b', 'root', 2), step('root', null, 0), step('a', 'root', 1)]);
    expect(tree.children.get('root')).toEqual(['a', 'b']);
    expect(tree.descendantsOf('root')).toBe(2);
  });

  it('a step whose parent never reached the trace is shown as a root', () => {
    const tree = buildStepTree([step('root', null, 0), step('orphan', 'missing', 1)]);
    expect(tree.children.get(null)).toEqual(['root', 'orphan']);
  });

  it('steps that name each other as parents are still listed, as roots', () => {
    const tree = buildStepTree([step('root', null, 0), step('a', 'b', 1), step('b', 'a', 2), step('c', 'a', 3)]);
    const rows = visibleRows(tree, () => true);
    expect(rows.map((r) => r.id).sort()).toEqual(['a', 'b', 'c', 'root']);
  });

  it("a skeleton's parent positions give the same tree as its parent ids, and are ignored when the steps are not in start order", () => {
    const steps = [step('root', null, 0), step('x', 'root', 5), step('orphan', 'gone', 6), step('y', 'root', 9), step('z', 'y', 12)];
    const byIds = buildStepTree(steps);
    const byPositions = buildStepTree(steps, [-1, 0, -1, 0, 3]);
    for (const id of ['root', 'x', 'orphan', 'y', 'z']) {
      expect([byPositions.parentOf(id), byPositions.depthOf(id), byPositions.descendantsOf(id)]).toEqual([byIds.parentOf(id), byIds.depthOf(id), byIds.descendantsOf(id)]);
    }
    expect([...byPositions.children]).toEqual([...byIds.children]);
    // Out of start order, positions would name the wrong steps: the ids decide.
    const shuffled = buildStepTree([steps[4], ...steps.slice(0, 4)], [3, -1, 0, -1, 0]);
    expect(shuffled.parentOf('z')).toBe('y');
  });

  it('steps with gaps in their start indices keep their order and parents', () => {
    const tree = buildStepTree([step('root', null, 0), step('x', 'root', 5), step('y', 'root', 9), step('z', 'y', 12)]);
    expect(tree.children.get('root')).toEqual(['x', 'y']);
    expect(tree.parentOf('z')).toBe('y');
    expect(tree.depthOf('z')).toBe(2);
    expect(tree.descendantsOf('root')).toBe(3);
  });

  it('a 10,000-deep chain builds without overflowing the stack', () => {
    const steps = Array.from({ length: 10_000 }, (_, i) => step(`s${i}`, i ? `s${i - 1}` : null, i));
    const tree = buildStepTree(steps);
    expect(tree.depthOf('s9999')).toBe(9999);
    expect(tree.descendantsOf('s0')).toBe(9999);
    expect(tree.parentOf('s9999')).toBe('s9998');
  });

  it('a small run opens fully', () => {
    const tree = buildStepTree(loopRun(3, 3));
    const rows = visibleRows(tree, (id) => defaultExpanded(tree, 150).has(id));
    expect(rows).toHaveLength(13);
  });

  it('a 10,000-step run opens as an outline: its loop iterations listed, the graph within budget, the blamed step reachable', () => {
    const tree = buildStepTree(loopRun(100, 99));
    const open = defaultExpanded(tree, 150, ['it57.98'], 25);
    const rows = visibleRows(tree, (id) => open.has(id));
    expect(rows.filter((r) => r.depth === 1)).toHaveLength(100);
    expect(rows.some((r) => r.id === 'it57.98')).toBe(true);
    const graph = visibleGraph(tree, (id) => open.has(id), {}, 25, new Set(['it57.98']));
    // Budget plus the pinned path (one iteration's page, the pinned step and the "more" nodes).
    expect(graph.length).toBeLessThanOrEqual(150 + 25 + 3);
    expect(graph.some((i) => i.id === 'it57.98')).toBe(true);
  });

  it('a run whose root has 100,000 children still opens its root', () => {
    const tree = buildStepTree(loopRun(1, 100_000));
    const open = defaultExpanded(tree, 150, [], 25);
    expect(open.has('root') && open.has('it0')).toBe(true);
    expect(visibleGraph(tree, (id) => open.has(id), {}, 25).length).toBeLessThan(60);
  });

  it('the graph pages a parent with many children and keeps pinned children in view', () => {
    const tree = buildStepTree(loopRun(1, 100));
    const items = visibleGraph(tree, () => true, {}, 25, new Set(['it0.80']));
    const shown = items.filter((i) => i.kind === 'step').map((i) => i.id);
    expect(shown).toContain('it0.80');
    expect(shown).not.toContain('it0.30');
    const more = items.find((i) => i.kind === 'more');
    expect(more).toMatchObject({ parent: 'it0', hidden: 74 });
    // The "+N more" item comes after the shown children.
    expect(items.indexOf(more!)).toBeGreaterThan(items.findIndex((i) => i.id === 'it0.80'));
    const page2 = visibleGraph(tree, () => true, { it0: 2 }, 25);
    expect(page2.find((i) => i.kind === 'more')).toMatchObject({ hidden: 50 });
  });

  it('a collapsed step tells how many steps it hides', () => {
    const tree = buildStepTree(loopRun(2, 5));
    const items = visibleGraph(tree, (id) => id === 'root', {}, 25);
    expect(items.find((i) => i.id === 'it0')).toMatchObject({ expanded: false, hiddenBelow: 5 });
  });

  it('arrow keys walk the tree: right to a child, down to a sibling, left back to the parent', () => {
    const tree = buildStepTree(loopRun(2, 2));
    const items = visibleGraph(tree, () => true, {}, 25);
    let at = navigateGraph(items, null, 'ArrowDown');
    expect(at).toBe('root');
    at = navigateGraph(items, at, 'ArrowRight');
    expect(at).toBe('it0');
    at = navigateGraph(items, at, 'ArrowDown');
    expect(at).toBe('it1');
    expect(navigateGraph(items, at, 'ArrowDown')).toBe('it1');
    at = navigateGraph(items, navigateGraph(items, at, 'ArrowRight'), 'ArrowLeft');
    expect(at).toBe('it1');
    expect(navigateGraph(items, 'root', 'ArrowLeft')).toBe('root');
  });
});

describe('loops in the graph of a big run', () => {
  /** root → 10 "iteration" steps (the 7th failed) → then one "answer". */
  function agentLoop(): Step[] {
    const steps = [step('root', null, 0)];
    for (let i = 0; i < 10; i++) steps.push({ ...step(`it${i}`, 'root', steps.length), name: 'iteration', status: i === 6 ? 'error' : 'ok' });
    steps.push({ ...step('answer', 'root', steps.length), name: 'answer' });
    return steps;
  }
  const shape = (items: ReturnType<typeof visibleGraph>) => items.map((i) => (i.kind === 'loop' ? `${i.name}×${i.count}/${i.failed}` : i.kind === 'more' ? `+${i.hidden}` : i.id));

  it('fold repeats of one step behind one node after the first, counting the failed ones', () => {
    const tree = buildStepTree(agentLoop());
    expect(shape(visibleGraph(tree, () => true, {}, 25, new Set(), 4))).toEqual(['root', 'it0', 'iteration×9/1', 'answer']);
    // Without folding (a small run), every step is a node.
    expect(visibleGraph(tree, () => true, {}, 25)).toHaveLength(12);
  });

  it('keep a pinned repeat (the blamed step, the selection) shown after the fold, and unfold on request', () => {
    const tree = buildStepTree(agentLoop());
    expect(shape(visibleGraph(tree, () => true, {}, 25, new Set(['it6']), 4))).toEqual(['root', 'it0', 'iteration×9/1', 'it6', 'answer']);
    const unfolded = visibleGraph(tree, () => true, { [loopFoldId('it0')]: 2 }, 25, new Set(), 4);
    expect(shape(unfolded)).toEqual(['root', ...Array.from({ length: 10 }, (_, i) => `it${i}`), 'answer']);
  });

  it('count a fold as one entry of a page, and its steps in the "+N more" total', () => {
    const steps = agentLoop();
    for (let i = 0; i < 3; i++) steps.push({ ...step(`tail${i}`, 'root', steps.length), name: `tail${i}` });
    const tree = buildStepTree(steps);
    expect(shape(visibleGraph(tree, () => true, {}, 2, new Set(), 4))).toEqual(['root', 'it0', 'iteration×9/1', '+4']);
  });
});

describe('steps holding a failure', () => {
  it('are the ok ancestors of a failed step; a failed ancestor is marked failed, not as holding one', () => {
    const tree = buildStepTree([
      step('root', null, 0),
      { ...step('round', 'root', 1), status: 'error' },
      step('retry', 'round', 2),
      { ...step('call', 'retry', 3), status: 'error' },
      step('other', 'root', 4),
    ]);
    expect([...holdsFailure(tree)].sort()).toEqual(['retry', 'root']);
  });
});
