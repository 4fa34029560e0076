/**
 * The step tree as the graph draws it: framework wrapper steps taken out and
 * their children moved up to the nearest shown ancestor. The step list and
 * waterfall keep the full tree; only the graph reads this one.
 */
import type { Step } from '../../../src-shared/model';
import { buildStepTree, type StepTree } from './step-tree';

/** The tree without the steps `hide` picks (those in `keep` stay); the same tree when nothing is hidden. */
export function withoutWrappers(tree: StepTree, hide: (step: Step) => boolean, keep: Set<string>): StepTree {
  const hidden = new Set<string>();
  for (const s of tree.steps) if (hide(s) && !keep.has(s.step_id)) hidden.add(s.step_id);
  if (hidden.size === 0) return tree;
  const shownParent = (id: string): string | null => {
    let p = tree.parentOf(id);
    while (p !== null && hidden.has(p)) p = tree.parentOf(p);
    return p;
  };
  const steps: Step[] = [];
  for (const s of tree.steps) {
    if (hidden.has(s.step_id)) continue;
    const parent = shownParent(s.step_id);
    steps.push(parent === s.parent_id ? s : { ...s, parent_id: parent });
  }
  return buildStepTree(steps);
}

/** Nearest step of `tree` at or above `id` in the full tree (a hidden wrapper is stood in for by its shown ancestor). */
export function shownStandIn(full: StepTree, shown: StepTree, id: string | null): string | null {
  for (let cur = id; cur !== null; cur = full.parentOf(cur)) if (shown.byId.has(cur)) return cur;
  return null;
}
