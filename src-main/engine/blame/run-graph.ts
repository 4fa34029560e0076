/**
 * The step tree of one run as arrays indexed by position in `detail.steps`
 * (start order). Orphans (a parent id that is not in the run) are treated as
 * roots; duplicates (metadata.duplicate_of) stay in place but are "not live":
 * no rule looks at them.
 */
import type { RunDetail, Step } from '../../../src-shared/model';
import { duplicateOf } from '../scoring/score-run';
import { factsOf, statusCode, typeCode } from './step-codes';
import { StringTable } from '../text/string-table';
import { int32Cells } from './scratch-arrays';
import { StepLists } from './step-lists';

export interface RunGraph {
  detail: RunDetail;
  steps: Step[];
  /** Step id → position (built on first use). */
  readonly pos: Map<string, number>;
  parent: Int32Array;
  /** Each step's children, in step order (count(p), at(p, i); view(p) for an array-like). */
  children: StepLists;
  roots: number[];
  depth: Int32Array;
  /** 1 for steps the rules look at, 0 for duplicates. Flags are typed arrays: a JS array of 100,000 entries
   * took ~4 ms to make (measured, Node 20), ×150 one of 10,000; a Uint8Array takes ~0.3 ms. */
  live: Uint8Array;
  /** 1 for steps whose parent id is not in the run (treated as roots). */
  orphan: Uint8Array;
  /** Each step's type, status and facts as codes (step-codes.ts): what loops over every step test first. */
  types: Uint8Array;
  statuses: Uint8Array;
  facts: Uint8Array;
  /** Each step's name as an index into `names` (the distinct names, in order of first use), for the same reason. */
  nameIds: Int32Array;
  names: string[];
}

export function buildRunGraph(detail: RunDetail): RunGraph {
  const steps = detail.steps;
  const n = steps.length;
  // Id → position, built only when a parent is not found the cheap way below (or someone asks).
  let pos: Map<string, number> | null = null;
  const posMap = (): Map<string, number> => {
    if (pos === null) {
      pos = new Map<string, number>();
      for (let i = 0; i < n; i++) pos.set(steps[i].step_id, i);
    }
    return pos;
  };
  // The per-step arrays come from the scratch arrays (scratch-arrays.ts says why).
  const parent = int32Cells(n).fill(-1);
  const roots: number[] = [];
  const orphan = new Uint8Array(n);
  const live = new Uint8Array(n);
  const childCount = int32Cells(n);
  const types = new Uint8Array(n);
  const statuses = new Uint8Array(n);
  const facts = new Uint8Array(n);
  const nameIds = int32Cells(n);
  const names = new StringTable();
  for (let i = 0; i < n; i++) {
    const s = steps[i];
    live[i] = duplicateOf(s) === null ? 1 : 0;
    types[i] = typeCode(s.type);
    statuses[i] = statusCode(s.status);
    facts[i] = factsOf(s);
    nameIds[i] = names.intern(s.name);
    const pid = s.parent_id;
    let p: number | undefined;
    if (pid !== null) {
      // A step's parent is almost always the previous step or one of its ancestors (the spans still open).
      for (let j = i - 1, hops = 0; j >= 0 && hops < 16; j = parent[j], hops++) {
        if (steps[j].step_id === pid) {
          p = j;
          break;
        }
      }
      if (p === undefined) p = posMap().get(pid);
    }
    if (p === undefined || p === i) {
      if (s.parent_id !== null) orphan[i] = 1;
      roots.push(i);
    } else {
      parent[i] = p;
      childCount[p]++;
    }
  }
  // Children as one list per step in two flat arrays (step-lists.ts), filled in step order: an array per parent
  // and one for the whole run were two arrays of 800 kB on a 100,000-step agent loop (the run's and its root's),
  // made in the old generation (large objects) and in fresh memory by every blame.
  const childStart = int32Cells(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i] + childCount[i];
  const childItems = int32Cells(childStart[n]);
  const filled = childCount.fill(0);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p >= 0) childItems[childStart[p] + filled[p]++] = i;
  }
  const children = new StepLists(childStart, childItems);
  // Depth by walking up with memo; a parent cycle (corrupt data) is cut at the repeat.
  const depth = int32Cells(n).fill(-1);
  for (let i = 0; i < n; i++) {
    // Parents start before their children, so their depth is usually known already.
    const p = parent[i];
    if (p < 0) depth[i] = 0;
    else if (p < i && depth[p] >= 0) depth[i] = depth[p] + 1;
  }
  for (let i = 0; i < n; i++) {
    if (depth[i] >= 0) continue;
    const chain: number[] = [];
    let j = i;
    while (j >= 0 && depth[j] < 0 && chain.length <= n) {
      chain.push(j);
      j = parent[j];
      if (j === i) break;
    }
    let d = j >= 0 && depth[j] >= 0 ? depth[j] + 1 : 0;
    for (let k = chain.length - 1; k >= 0; k--) depth[chain[k]] = d++;
  }
  return {
    detail,
    steps,
    get pos() {
      return posMap();
    },
    parent,
    children,
    roots,
    depth,
    live,
    orphan,
    types,
    statuses,
    facts,
    nameIds,
    names: names.strings,
  };
}

export function isAncestor(g: RunGraph, ancestor: number, node: number): boolean {
  let j = g.parent[node];
  let guard = 0;
  while (j >= 0 && guard++ < 10_000) {
    if (j === ancestor) return true;
    j = g.parent[j];
  }
  return false;
}

export function ancestorsOf(g: RunGraph, node: number): number[] {
  const out: number[] = [];
  let j = g.parent[node];
  while (j >= 0 && out.length < 10_000) {
    out.push(j);
    j = g.parent[j];
  }
  return out;
}

/** A key that is equal for two steps exactly when their types are: the type's code, or the type itself when it has none. */
export function typeKeyOf(g: RunGraph, p: number): number | string {
  return g.types[p] !== 0 ? g.types[p] : g.steps[p].type;
}

/** The children of the node's parent (the roots for a root), itself included, in step order. */
export function siblingsOf(g: RunGraph, node: number): Int32Array | number[] {
  return g.parent[node] >= 0 ? g.children.view(g.parent[node]) : g.roots;
}
