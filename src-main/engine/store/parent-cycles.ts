/**
 * A trace may name parents that form a cycle (a → b → a), by accident or on
 * purpose. Every tree walk downstream (show, blame, the step graph) assumes a
 * forest, so cycles are broken once, where runs are read: the step of each
 * cycle that started last loses its parent and becomes a root. Iterative,
 * never recursive: a 100,000-deep chain is data, not a stack overflow.
 */
export interface ParentLink {
  step_id: string;
  parent_id: string | null;
  index: number;
}

/** Clears parent_id on one step of each cycle (in place); returns the step ids changed. */
export function breakParentCycles<T extends ParentLink>(steps: T[]): string[] {
  const parents = steps.map((s) => s.parent_id);
  const cut = cutParentCycles(
    steps.map((s) => s.step_id),
    parents,
    steps.map((s) => s.index),
  );
  for (const i of cut) steps[i].parent_id = null;
  return cut.map((i) => steps[i].step_id);
}

/**
 * The same over columns (entry i of each array is one step): clears parentIds[i] of one step of each
 * cycle, in place, and returns those positions. Positions and typed arrays instead of maps of ids:
 * this runs on every read of a run, 100,000 steps and more.
 */
export function cutParentCycles(stepIds: readonly string[], parentIds: (string | null)[], indexes: readonly number[]): number[] {
  const n = stepIds.length;
  const position = new Map<string, number>();
  for (let i = 0; i < n; i++) position.set(stepIds[i], i);
  const parentOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parentIds[i];
    parentOf[i] = p === null ? -1 : (position.get(p) ?? -1);
  }
  // 0 unvisited, 1 on the current path, 2 known to reach a root.
  const state = new Uint8Array(n);
  const path: number[] = [];
  const cut: number[] = [];
  for (let start = 0; start < n; start++) {
    if (state[start] === 2) continue;
    path.length = 0;
    let cur = start;
    while (cur !== -1 && state[cur] === 0) {
      state[cur] = 1;
      path.push(cur);
      cur = parentOf[cur];
    }
    if (cur !== -1 && state[cur] === 1) {
      // The chain came back to a step on this path: the cycle is path[from…]. Cut its latest-starting step.
      let latest = cur;
      for (let k = path.indexOf(cur); k < path.length; k++) if (indexes[path[k]] > indexes[latest]) latest = path[k];
      parentIds[latest] = null;
      parentOf[latest] = -1;
      cut.push(latest);
    }
    for (const s of path) state[s] = 2;
  }
  return cut;
}
