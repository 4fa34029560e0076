/**
 * Positions for the graph's visible items, laid out top to bottom by dagre in
 * execution order: under a parent, siblings that ran one after another form a
 * chain (a sequence edge from each to the next), siblings whose times overlap
 * ran in parallel and share a rank (side by side), and a step's own children
 * hang below it, before its next sibling. dagre does all placement; this file
 * only says which edges and how long (rank distance) they must be.
 */
import dagre from '@dagrejs/dagre';
import type { GraphItem } from './step-tree';

const NODE_WIDTH = 200;
const NODE_HEIGHT = 46;
const MORE_WIDTH = 150;
const MORE_HEIGHT = 28;
/** Above this many items dagre's crossing minimisation costs more than it gives (measured: 131 nodes 150–280 ms with it, 60–100 ms without). */
const ORDER_HEURISTIC_MAX = 120;

export interface Positioned {
  item: GraphItem;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphLayout {
  positions: Map<string, Positioned>;
  /** Sequence edges (ran one after the other, same parent), in start order. */
  sequence: [string, string][];
  /** Parent → child edges (into the first phase of its children). */
  contains: [string, string][];
}

/** Start and end (ms) of a step; items without a time (the "+N more" stubs) run after their siblings. */
export type TimeOf = (id: string) => { start: number; end: number } | null;

/** Siblings in start order grouped into phases: a step whose start falls before the phase's latest end ran in parallel with it. */
export function phasesOf(ids: string[], timeOf: TimeOf): string[][] {
  const phases: string[][] = [];
  let end = -Infinity;
  for (const id of ids) {
    const t = timeOf(id);
    if (t && phases.length && t.start < end) {
      phases[phases.length - 1].push(id);
      end = Math.max(end, t.end);
    } else {
      phases.push([id]);
      end = t ? t.end : Infinity;
    }
  }
  return phases;
}

export function layoutGraph(items: GraphItem[], timeOf: TimeOf): GraphLayout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 22, ranksep: 26, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  const VIRTUAL = '\u0000root';
  g.setNode(VIRTUAL, { width: 1, height: 1 });
  const kids = new Map<string, string[]>();
  for (const item of items) {
    // "+N more" and folded loops are small stubs.
    const stub = item.kind !== 'step';
    g.setNode(item.id, { width: stub ? MORE_WIDTH : NODE_WIDTH, height: stub ? MORE_HEIGHT : NODE_HEIGHT });
    const parent = item.parent !== null && g.hasNode(item.parent) ? item.parent : VIRTUAL;
    const list = kids.get(parent) ?? [];
    list.push(item.id);
    kids.set(parent, list);
  }
  // Ranks a shown subtree spans below its root, computed bottom-up (items come parents first).
  const phases = new Map<string, string[][]>();
  for (const [parent, ids] of kids) phases.set(parent, phasesOf(ids, timeOf));
  const depth = new Map<string, number>();
  const spanBelow = (id: string): number => depth.get(id) ?? 0;
  for (let i = items.length - 1; i >= -1; i--) {
    const id = i < 0 ? VIRTUAL : items[i].id;
    let total = 0;
    for (const phase of phases.get(id) ?? []) total += Math.max(...phase.map((m) => 1 + spanBelow(m)));
    depth.set(id, total);
  }
  const sequence: [string, string][] = [];
  const contains: [string, string][] = [];
  for (const [parent, list] of phases) {
    for (const m of list[0]) {
      g.setEdge(parent, m, { minlen: 1, weight: 2 });
      if (parent !== VIRTUAL) contains.push([parent, m]);
    }
    for (let k = 0; k + 1 < list.length; k++) {
      const here = list[k];
      const next = list[k + 1];
      // The next phase starts below everything this phase holds.
      const minlen = Math.max(...here.map((m) => 1 + spanBelow(m)));
      for (const m of next) g.setEdge(here[0], m, { minlen, weight: 4 });
      // Drawn: every pair when few (a fan-out into or out of parallel steps), else a chain through the first ones.
      if (here.length * next.length <= 16) for (const a of here) for (const b of next) sequence.push([a, b]);
      else for (const b of next) sequence.push([here[0], b]);
    }
  }
  dagre.layout(g, { disableOptimalOrderHeuristic: items.length > ORDER_HEURISTIC_MAX });
  const positions = new Map<string, Positioned>();
  for (const item of items) {
    const n = g.node(item.id) as { x: number; y: number; width: number; height: number };
    // dagre gives centres; React Flow wants top-left corners.
    positions.set(item.id, { item, x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height });
  }
  return { positions, sequence, contains };
}

/**
 * Lineage edges between consecutive steps of the lineage path. A step hidden
 * in a collapsed subtree is represented by its nearest shown ancestor.
 */
export function lineageEdges(path: string[], shown: (id: string) => boolean, ancestors: (id: string) => string[]): [string, string][] {
  const visibleOf = (id: string): string | null => {
    if (shown(id)) return id;
    for (const a of ancestors(id)) if (shown(a)) return a;
    return null;
  };
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 1 < path.length; i++) {
    const a = visibleOf(path[i]);
    const b = visibleOf(path[i + 1]);
    if (a === null || b === null || a === b) continue;
    const key = `${a}>${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([a, b]);
  }
  return out;
}
