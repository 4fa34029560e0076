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
  const byId = new Map<string, T>();
  for (const s of steps) byId.set(s.step_id, s);
  // 0 unvisited, 1 on the current path, 2 known to reach a root.
  const state = new Map<string, 0 | 1 | 2>();
  const broken: string[] = [];
  for (const start of steps) {
    if (state.get(start.step_id) === 2) continue;
    const path: T[] = [];
    let cur: T | undefined = start;
    while (cur && (state.get(cur.step_id) ?? 0) === 0) {
      state.set(cur.step_id, 1);
      path.push(cur);
      cur = cur.parent_id === null ? undefined : byId.get(cur.parent_id);
      if (cur === undefined) break;
    }
    if (cur && state.get(cur.step_id) === 1) {
      // The chain came back to a step on this path: the cycle is path[from…]. Cut its latest-starting step.
      const from = path.indexOf(cur);
      const cycle = path.slice(from);
      const cut = cycle.reduce((a, b) => (b.index > a.index ? b : a));
      cut.parent_id = null;
      broken.push(cut.step_id);
    }
    for (const s of path) state.set(s.step_id, 2);
  }
  return broken;
}
