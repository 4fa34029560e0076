import { describe, expect, it } from 'vitest';
import type { ExperimentSummary } from '../../../src-shared/experiments';
import type { Step } from '../../../src-shared/model';
import { BRANCH_HEIGHT, experimentsByStep, MAX_BRANCHES_PER_STEP, placeForkBranches, type Rect } from './fork-branches';

const step = (step_id: string, replay_key: string) => ({ step_id, replay_key }) as Step;
const exp = (id: string, key: string, created_at: number) => ({ experiment_id: id, fork_step_key: key, created_at, estimate: null }) as unknown as ExperimentSummary;
const rect = (x: number, y: number): Rect => ({ x, y, width: 200, height: 46 });

function overlap(a: Rect, b: Rect) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('experiments drawn as branches of the step graph', () => {
  const steps = [step('s0', 'planner#0'), step('s1', 'researcher#0'), step('s2', 'researcher#0/query#0')];

  it('each experiment hangs off the step it forked at, matched by replay key, newest first', () => {
    const by = experimentsByStep(steps, [exp('a', 'planner#0', 1), exp('b', 'planner#0', 2), exp('c', 'researcher#0/query#0', 3), exp('x', 'gone#0', 4)]);
    expect(by.get('s0')!.map((e) => e.experiment_id)).toEqual(['b', 'a']);
    expect(by.get('s2')!.map((e) => e.experiment_id)).toEqual(['c']);
    expect(by.size).toBe(2);
  });

  it('branches sit to the right of their step and never cover a step or each other', () => {
    const shown = new Map([
      ['s0', rect(10, 10)],
      ['s1', rect(10, 66)],
      ['s2', rect(258, 40)],
    ]);
    const by = experimentsByStep(steps, [exp('a', 'planner#0', 1), exp('b', 'planner#0', 2), exp('c', 'researcher#0/query#0', 3)]);
    const branches = placeForkBranches(by, shown);
    expect(branches).toHaveLength(3);
    const all = [...shown.values(), ...branches.map((b) => b.rect)];
    for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) expect(overlap(all[i], all[j])).toBe(false);
    for (const b of branches) expect(b.rect.x).toBeGreaterThanOrEqual(shown.get(b.stepId)!.x + 200);
  });

  it('a step forked many times shows a few branches and one "more" branch holding the rest', () => {
    const many = Array.from({ length: 9 }, (_, i) => exp(`e${i}`, 'planner#0', i));
    const branches = placeForkBranches(experimentsByStep(steps, many), new Map([['s0', rect(0, 0)]]));
    expect(branches).toHaveLength(MAX_BRANCHES_PER_STEP);
    expect(branches.at(-1)!.overflow).toBe(true);
    expect(branches.at(-1)!.experiments).toHaveLength(9 - (MAX_BRANCHES_PER_STEP - 1));
    expect(branches[1].rect.y).toBeGreaterThanOrEqual(branches[0].rect.y + BRANCH_HEIGHT);
  });

  it('a fork step hidden in a collapsed subtree gets no branch', () => {
    expect(placeForkBranches(experimentsByStep(steps, [exp('a', 'researcher#0/query#0', 1)]), new Map([['s1', rect(0, 0)]]))).toEqual([]);
  });
});

describe('a branch stays close to its step', () => {
  it('when the slot beside the step is taken, the branch goes to the nearer free side, here above', () => {
    const shown = new Map([
      ['s0', rect(0, 100)],
      ['s1', rect(0, 156)],
      ['s2', rect(256, 133)],
    ]);
    const [b] = placeForkBranches(experimentsByStep([step('s0', 'planner#0')], [exp('a', 'planner#0', 1)]), shown);
    expect(b.rect.y + b.rect.height).toBeLessThanOrEqual(133);
    expect(b.rect.y).toBeGreaterThan(40);
  });
});
