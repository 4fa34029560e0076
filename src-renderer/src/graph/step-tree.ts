/**
 * The step tree of one run, and which parts of it are on screen. Big runs
 * (10,000+ steps) are the normal case, so everything here is iterative
 * (a 10,000-deep chain must not overflow the stack) and linear in the run size.
 */
import type { Step } from '../../../src-shared/model';

export interface StepTree {
  steps: Step[];
  byId: Map<string, Step>;
  /** Children in start order; roots under the key `null`. */
  children: Map<string | null, string[]>;
  parent: Map<string, string | null>;
  depth: Map<string, number>;
  /** Number of steps below each step (not counting itself). */
  descendants: Map<string, number>;
}

export function buildStepTree(steps: Step[]): StepTree {
  const sorted = [...steps].sort((a, b) => a.index - b.index);
  const byId = new Map(sorted.map((s) => [s.step_id, s]));
  const children = new Map<string | null, string[]>([[null, []]]);
  const parent = new Map<string, string | null>();
  for (const step of sorted) {
    // A parent that never made it into the trace (orphaned span) makes its children roots.
    const p = step.parent_id !== null && byId.has(step.parent_id) && step.parent_id !== step.step_id ? step.parent_id : null;
    parent.set(step.step_id, p);
    let list = children.get(p);
    if (!list) children.set(p, (list = []));
    list.push(step.step_id);
  }
  const depth = new Map<string, number>();
  const order: string[] = [];
  const queue = [...(children.get(null) ?? [])];
  for (const id of queue) depth.set(id, 0);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i];
    order.push(id);
    for (const child of children.get(id) ?? []) {
      if (depth.has(child)) continue;
      depth.set(child, (depth.get(id) ?? 0) + 1);
      queue.push(child);
    }
  }
  const descendants = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i];
    let n = 0;
    for (const child of children.get(id) ?? []) n += 1 + (descendants.get(child) ?? 0);
    descendants.set(id, n);
  }
  return { steps: sorted, byId, children, parent, depth, descendants };
}

export function ancestorsOf(tree: StepTree, stepId: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let p = tree.parent.get(stepId) ?? null;
  while (p !== null && !seen.has(p)) {
    seen.add(p);
    out.push(p);
    p = tree.parent.get(p) ?? null;
  }
  return out;
}

/**
 * Which steps start expanded. Small runs open fully. Beyond `budget` steps
 * the roots open, then the tree opens breadth-first while the graph stays
 * within `budget` nodes (a parent costs at most one page of children plus its
 * "+N more" node), so a 100,000-step run first shows its outline. Steps on
 * `pinned` paths (the blamed step, the lineage path, the selection) always
 * have their ancestors open.
 */
export function defaultExpanded(tree: StepTree, budget: number, pinned: Iterable<string> = [], pageSize = Infinity): Set<string> {
  const expanded = new Set<string>();
  if (tree.steps.length <= budget) {
    for (const [id, n] of tree.descendants) if (n > 0) expanded.add(id);
    return expanded;
  }
  const cost = (id: string) => {
    const n = (tree.children.get(id) ?? []).length;
    return n > pageSize ? pageSize + 1 : n;
  };
  const roots = tree.children.get(null) ?? [];
  let visible = Math.min(roots.length, pageSize);
  const queue: string[] = [];
  for (const id of roots) {
    if ((tree.children.get(id) ?? []).length === 0) continue;
    expanded.add(id);
    visible += cost(id);
    queue.push(...(tree.children.get(id) ?? []).slice(0, pageSize));
  }
  for (let i = 0; i < queue.length; i++) {
    const kids = tree.children.get(queue[i]) ?? [];
    if (kids.length === 0 || visible + cost(queue[i]) > budget) continue;
    expanded.add(queue[i]);
    visible += cost(queue[i]);
    queue.push(...kids.slice(0, pageSize));
  }
  for (const id of pinned) for (const a of ancestorsOf(tree, id)) expanded.add(a);
  return expanded;
}

export type ExpansionOverrides = Record<string, boolean>;

export function isExpanded(id: string, defaults: Set<string>, overrides: ExpansionOverrides): boolean {
  const o = overrides[id];
  return o === undefined ? defaults.has(id) : o;
}

export interface ListRow {
  id: string;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

/** The step list: the tree in start order, skipping collapsed subtrees. */
export function visibleRows(tree: StepTree, expanded: (id: string) => boolean): ListRow[] {
  const rows: ListRow[] = [];
  const stack = [...(tree.children.get(null) ?? [])].reverse();
  while (stack.length) {
    const id = stack.pop()!;
    const kids = tree.children.get(id) ?? [];
    const open = kids.length > 0 && expanded(id);
    rows.push({ id, depth: tree.depth.get(id) ?? 0, hasChildren: kids.length > 0, expanded: open });
    if (open) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return rows;
}

export type GraphItem =
  | { kind: 'step'; id: string; parent: string | null; expanded: boolean; hiddenBelow: number }
  | { kind: 'more'; id: string; parent: string | null; hidden: number };

/**
 * The graph's level of detail: like visibleRows, but a parent with many
 * children shows them a page at a time, ending in a "+N more" item, so that
 * the layout and the DOM stay small whatever the run size. Children on a
 * pinned path are always shown even when they fall beyond the page.
 */
export function visibleGraph(
  tree: StepTree,
  expanded: (id: string) => boolean,
  pages: Record<string, number>,
  pageSize: number,
  pinned: Set<string> = new Set(),
): GraphItem[] {
  const items: GraphItem[] = [];
  // A pinned step keeps its whole ancestor path out of the "+N more" pages.
  const keep = new Set(pinned);
  for (const id of pinned) for (const a of ancestorsOf(tree, id)) keep.add(a);
  type Entry = string | Extract<GraphItem, { kind: 'more' }>;
  const stack: Entry[] = [];
  // Pushes a parent's shown children (and its "+N more" item, which comes last).
  const pushChildren = (parent: string | null, kids: string[]): void => {
    const limit = (pages[parent ?? ''] ?? 1) * pageSize;
    let shown = kids;
    if (kids.length > limit) {
      shown = kids.slice(0, limit);
      for (const k of kids.slice(limit)) if (keep.has(k)) shown.push(k);
      const hidden = kids.length - shown.length;
      if (hidden > 0) stack.push({ kind: 'more', id: `more:${parent ?? ''}`, parent, hidden });
    }
    for (let i = shown.length - 1; i >= 0; i--) stack.push(shown[i]);
  };
  pushChildren(null, tree.children.get(null) ?? []);
  while (stack.length) {
    const entry = stack.pop()!;
    if (typeof entry !== 'string') {
      items.push(entry);
      continue;
    }
    const kids = tree.children.get(entry) ?? [];
    const open = kids.length > 0 && expanded(entry);
    items.push({ kind: 'step', id: entry, parent: tree.parent.get(entry) ?? null, expanded: open, hiddenBelow: open ? 0 : tree.descendants.get(entry) ?? 0 });
    if (open) pushChildren(entry, kids);
  }
  return items;
}

export type NavKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';

/**
 * Keyboard moves on the graph, which is laid out left to right: Left goes to
 * the parent, Right to the first shown child, Up/Down to the previous/next
 * shown sibling. Returns the same id when there is nowhere to go.
 */
export function navigateGraph(items: GraphItem[], current: string | null, key: NavKey): string | null {
  const steps = items.filter((i): i is Extract<GraphItem, { kind: 'step' }> => i.kind === 'step');
  if (steps.length === 0) return null;
  const here = steps.find((s) => s.id === current);
  if (!here) return steps[0].id;
  if (key === 'ArrowLeft') return here.parent !== null && steps.some((s) => s.id === here.parent) ? here.parent : here.id;
  if (key === 'ArrowRight') return steps.find((s) => s.parent === here.id)?.id ?? here.id;
  const siblings = steps.filter((s) => s.parent === here.parent);
  const at = siblings.findIndex((s) => s.id === here.id);
  const next = key === 'ArrowUp' ? siblings[at - 1] : siblings[at + 1];
  return next ? next.id : here.id;
}
