/**
 * The step tree of one run, and which parts of it are on screen. Big runs
 * (10,000+ steps) are the normal case, so everything here is iterative
 * (a 10,000-deep chain must not overflow the stack) and linear in the run size.
 */
import type { Step } from '../../../src-shared/model';

export interface StepTree {
  steps: Step[];
  byId: Map<string, Step>;
  /** Children in start order; roots under the key `null`. Only steps with children have an entry. */
  children: Map<string | null, string[]>;
  parentOf(id: string): string | null;
  depthOf(id: string): number;
  /** Number of steps below a step (not counting itself). */
  descendantsOf(id: string): number;
}

/**
 * Built on integer positions rather than per-step Maps: with 100,000 steps
 * each string-keyed Map pass costs ~70 ms, and the first version (five such
 * passes) took 450 ms in Chromium on a 100,000-step run.
 */
export function buildStepTree(steps: Step[], parentPositions?: ArrayLike<number>): StepTree {
  // Steps already in index order (a skeleton's always are) are used as they are: no copy, no sort.
  const inOrder = steps.every((s, i) => i === 0 || steps[i - 1].index <= s.index);
  const sorted = inOrder ? steps : [...steps].sort((a, b) => a.index - b.index);
  const n = sorted.length;
  const byId = new Map<string, Step>();
  for (const step of sorted) byId.set(step.step_id, step);
  // Position of a step in `sorted`: its index when indices are the usual 0..n-1.
  const misplaced = new Map<Step, number>();
  sorted.forEach((step, i) => {
    if (step.index !== i) misplaced.set(step, i);
  });
  const posOf = (step: Step): number => (step.index >= 0 && step.index < n && sorted[step.index] === step ? step.index : misplaced.get(step)!);

  const parentPos = new Int32Array(n).fill(-1);
  const childCount = new Int32Array(n + 1);
  // A skeleton's parents come as positions in this same order (-1: none): 100,000 lookups by id fewer.
  const known = inOrder && parentPositions?.length === n;
  for (let i = 0; i < n; i++) {
    if (known) parentPos[i] = parentPositions[i] === i ? -1 : parentPositions[i];
    else {
      const step = sorted[i];
      // A parent that never made it into the trace (orphaned span) makes its children roots.
      const parent = step.parent_id !== null && step.parent_id !== step.step_id ? byId.get(step.parent_id) : undefined;
      if (parent) parentPos[i] = posOf(parent);
    }
    childCount[parentPos[i] + 1]++;
  }
  // Children in start order, as one flat array sliced per parent (slot 0 holds the roots).
  const start = new Int32Array(n + 2);
  const flat = new Int32Array(n);
  const depth = new Int32Array(n);
  const order = new Int32Array(n);
  let len = 0;
  const link = () => {
    start.fill(0);
    for (let i = 0; i <= n; i++) start[i + 1] = start[i] + childCount[i];
    const fill = start.slice(0, n + 1);
    for (let i = 0; i < n; i++) flat[fill[parentPos[i] + 1]++] = i;
    // Breadth-first from the roots.
    len = 0;
    for (let k = start[0]; k < start[1]; k++) order[len++] = flat[k];
    for (let q = 0; q < len; q++) {
      const p = order[q];
      for (let k = start[p + 1]; k < start[p + 2]; k++) {
        depth[flat[k]] = depth[p] + 1;
        order[len++] = flat[k];
      }
    }
  };
  link();
  if (len < n) {
    // Steps that name each other as parents (a malformed trace) are unreachable from
    // any root: they are shown as roots rather than silently dropped.
    const reached = new Uint8Array(n);
    for (let q = 0; q < len; q++) reached[order[q]] = 1;
    for (let i = 0; i < n; i++) {
      if (reached[i]) continue;
      childCount[parentPos[i] + 1]--;
      parentPos[i] = -1;
      childCount[0]++;
    }
    depth.fill(0);
    link();
  }

  const children = new Map<string | null, string[]>();
  const idsOf = (slot: number) => Array.from(flat.subarray(start[slot], start[slot + 1]), (c) => sorted[c].step_id);
  children.set(null, idsOf(0));
  for (let i = 0; i < n; i++) if (childCount[i + 1] > 0) children.set(sorted[i].step_id, idsOf(i + 1));

  const below = new Int32Array(n);
  for (let q = len - 1; q >= 0; q--) {
    const i = order[q];
    if (parentPos[i] >= 0) below[parentPos[i]] += below[i] + 1;
  }
  const at = (id: string): number => {
    const step = byId.get(id);
    return step ? posOf(step) : -1;
  };
  return {
    steps: sorted,
    byId,
    children,
    parentOf: (id) => {
      const i = at(id);
      return i >= 0 && parentPos[i] >= 0 ? sorted[parentPos[i]].step_id : null;
    },
    depthOf: (id) => {
      const i = at(id);
      return i >= 0 ? depth[i] : 0;
    },
    descendantsOf: (id) => {
      const i = at(id);
      return i >= 0 ? below[i] : 0;
    },
  };
}

export function ancestorsOf(tree: StepTree, stepId: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let p = tree.parentOf(stepId);
  while (p !== null && !seen.has(p)) {
    seen.add(p);
    out.push(p);
    p = tree.parentOf(p);
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
    for (const id of tree.children.keys()) if (id !== null) expanded.add(id);
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
    rows.push({ id, depth: tree.depthOf(id), hasChildren: kids.length > 0, expanded: open });
    if (open) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return rows;
}

export type GraphItem =
  | { kind: 'step'; id: string; parent: string | null; expanded: boolean; hiddenBelow: number }
  | { kind: 'more'; id: string; parent: string | null; hidden: number }
  /** Repeats of one step folded after its first: `count` more siblings with its name and type, `failed` of them failed. */
  | { kind: 'loop'; id: string; parent: string | null; name: string; count: number; failed: number };

/** The id of the fold of a loop whose first iteration is `firstId`; a page count stored under it unfolds it. */
export function loopFoldId(firstId: string): string {
  return `loop:${firstId}`;
}

type LoopItem = Extract<GraphItem, { kind: 'loop' }>;

/**
 * A parent's children with each run of at least `loopMin` consecutive siblings sharing a name and type
 * (an agent loop's iterations) folded to its first step plus one loop item, unless unfolded in `pages`.
 * Pinned steps inside a fold stay shown after it.
 */
function foldLoops(tree: StepTree, parent: string | null, kids: string[], loopMin: number, pages: Record<string, number>, keep: Set<string>): (string | LoopItem)[] {
  const out: (string | LoopItem)[] = [];
  for (let i = 0; i < kids.length; ) {
    const first = tree.byId.get(kids[i])!;
    let j = i + 1;
    while (j < kids.length) {
      const s = tree.byId.get(kids[j])!;
      if (s.name !== first.name || s.type !== first.type) break;
      j++;
    }
    const fold = loopFoldId(first.step_id);
    if (j - i < loopMin || pages[fold] !== undefined) {
      for (let k = i; k < j; k++) out.push(kids[k]);
    } else {
      out.push(kids[i]);
      let failed = 0;
      for (let k = i + 1; k < j; k++) if (tree.byId.get(kids[k])!.status === 'error') failed++;
      out.push({ kind: 'loop', id: fold, parent, name: first.name, count: j - i - 1, failed });
      for (let k = i + 1; k < j; k++) if (keep.has(kids[k])) out.push(kids[k]);
    }
    i = j;
  }
  return out;
}

/**
 * The graph's level of detail: like visibleRows, but a parent with many
 * children shows them a page at a time, ending in a "+N more" item, so that
 * the layout and the DOM stay small whatever the run size. Children on a
 * pinned path are always shown even when they fall beyond the page. With
 * `loopMin`, repeats of a step (a loop's iterations) fold behind one item.
 */
export function visibleGraph(
  tree: StepTree,
  expanded: (id: string) => boolean,
  pages: Record<string, number>,
  pageSize: number,
  pinned: Set<string> = new Set(),
  loopMin: number | null = null,
): GraphItem[] {
  const items: GraphItem[] = [];
  // A pinned step keeps its whole ancestor path out of the "+N more" pages.
  const keep = new Set(pinned);
  for (const id of pinned) for (const a of ancestorsOf(tree, id)) keep.add(a);
  type Entry = string | LoopItem | Extract<GraphItem, { kind: 'more' }>;
  const stack: Entry[] = [];
  // Pushes a parent's shown children (and its "+N more" item, which comes last); loops fold first.
  const pushChildren = (parent: string | null, kids: string[]): void => {
    const entries = loopMin === null ? kids : foldLoops(tree, parent, kids, loopMin, pages, keep);
    const limit = (pages[parent ?? ''] ?? 1) * pageSize;
    let shown = entries;
    if (entries.length > limit) {
      shown = entries.slice(0, limit);
      for (const k of entries.slice(limit)) if (typeof k === 'string' && keep.has(k)) shown.push(k);
      let hidden = 0;
      for (const k of entries.slice(limit)) hidden += typeof k === 'string' ? (keep.has(k) ? 0 : 1) : k.count;
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
    items.push({ kind: 'step', id: entry, parent: tree.parentOf(entry), expanded: open, hiddenBelow: open ? 0 : tree.descendantsOf(entry) });
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

/**
 * Steps that did not fail themselves but have a failed step somewhere below them: an "ok" step that holds a
 * retried or caught error is not drawn healthy. (A failed step is marked as failed, not as holding one.)
 */
export function holdsFailure(tree: StepTree): Set<string> {
  const out = new Set<string>();
  for (const s of tree.steps) {
    if (s.status !== 'error') continue;
    for (let p = tree.parentOf(s.step_id); p !== null && !out.has(p); p = tree.parentOf(p)) out.add(p);
  }
  for (const id of out) if (tree.byId.get(id)?.status === 'error') out.delete(id);
  return out;
}
