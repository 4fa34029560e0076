/**
 * Experiments drawn as branches of the run in the step graph: one node per
 * experiment, hanging off its fork step, placed after the tree is laid out so
 * that the tree's own layout (and its cost) does not change when experiments
 * come and go.
 */
import type { ExperimentSummary } from '../../../src-shared/experiments';
import type { Step } from '../../../src-shared/model';

const BRANCH_WIDTH = 236;
export const BRANCH_HEIGHT = 50;
/** Horizontal gap from the fork step to its branches, and vertical gap between branches. */
const GAP_X = 56;
const GAP_Y = 8;
/** Beyond this a step's branches collapse into one "+N more" branch (an experiments list is one click away). */
export const MAX_BRANCHES_PER_STEP = 4;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ForkBranch {
  id: string;
  stepId: string;
  /** Experiments of this branch: one, or the overflow of a step with many. */
  experiments: ExperimentSummary[];
  overflow: boolean;
  rect: Rect;
}

/** Which step each experiment forked at, matched by replay key (the engine's own identity for a step). */
export function experimentsByStep(steps: Step[], experiments: ExperimentSummary[]): Map<string, ExperimentSummary[]> {
  const byKey = new Map(steps.map((s) => [s.replay_key, s.step_id]));
  const out = new Map<string, ExperimentSummary[]>();
  for (const e of experiments) {
    const stepId = byKey.get(e.fork_step_key) ?? e.estimate?.fork_step.step_id;
    if (!stepId) continue;
    const list = out.get(stepId) ?? [];
    list.push(e);
    out.set(stepId, list);
  }
  // Newest first: the experiment just started is the one the user looks for.
  for (const list of out.values()) list.sort((a, b) => b.created_at - a.created_at);
  return out;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Moves `rect` up (dir −1) or down (dir 1) until it overlaps nothing in `taken`; returns its y. */
function freeY(rect: Rect, taken: Rect[], dir: 1 | -1): number {
  const r = { ...rect };
  // Bounded: each move clears at least one rectangle, which is never hit again in this direction.
  for (let guard = 0; guard <= taken.length; guard++) {
    const hit = taken.find((t) => overlaps(r, t));
    if (!hit) break;
    r.y = dir === 1 ? hit.y + hit.height + GAP_Y : hit.y - r.height - GAP_Y;
  }
  return r.y;
}

/**
 * Branch rectangles to the right of each shown fork step. The first branch
 * of a step takes the free slot nearest its step's height, above or below;
 * the step's other branches stack under it. Nothing covers a tree node or
 * another branch. Forks whose step is not shown (collapsed away) get no branch.
 */
export function placeForkBranches(byStep: Map<string, ExperimentSummary[]>, shown: Map<string, Rect>): ForkBranch[] {
  const taken: Rect[] = [...shown.values()];
  const out: ForkBranch[] = [];
  const forks = [...byStep.keys()].filter((id) => shown.has(id)).sort((a, b) => shown.get(a)!.y - shown.get(b)!.y);
  for (const stepId of forks) {
    const anchor = shown.get(stepId)!;
    const list = byStep.get(stepId)!;
    const groups: { experiments: ExperimentSummary[]; overflow: boolean }[] =
      list.length <= MAX_BRANCHES_PER_STEP
        ? list.map((e) => ({ experiments: [e], overflow: false }))
        : [
            ...list.slice(0, MAX_BRANCHES_PER_STEP - 1).map((e) => ({ experiments: [e], overflow: false })),
            { experiments: list.slice(MAX_BRANCHES_PER_STEP - 1), overflow: true },
          ];
    const x = anchor.x + anchor.width + GAP_X;
    const centred = anchor.y + (anchor.height - BRANCH_HEIGHT) / 2;
    let y: number | null = null;
    for (const g of groups) {
      const rect: Rect = { x, y: y ?? centred, width: BRANCH_WIDTH, height: BRANCH_HEIGHT };
      if (y === null) {
        const down = freeY(rect, taken, 1);
        const up = freeY(rect, taken, -1);
        rect.y = Math.abs(up - centred) < Math.abs(down - centred) ? up : down;
      } else {
        rect.y = freeY(rect, taken, 1);
      }
      taken.push(rect);
      out.push({ id: `fork:${g.overflow ? `${stepId}:more` : g.experiments[0].experiment_id}`, stepId, experiments: g.experiments, overflow: g.overflow, rect });
      y = rect.y + BRANCH_HEIGHT + GAP_Y;
    }
  }
  return out;
}
