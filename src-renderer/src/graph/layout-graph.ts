/**
 * Positions for the graph's visible items, laid out left to right by dagre
 * (depth across, start order down). Only parent/child edges shape the layout;
 * lineage edges are drawn over it, so that the tree stays readable.
 */
import dagre from '@dagrejs/dagre';
import type { GraphItem } from './step-tree';

const NODE_WIDTH = 200;
const NODE_HEIGHT = 46;
const MORE_WIDTH = 150;
const MORE_HEIGHT = 28;

export interface Positioned {
  item: GraphItem;
  x: number;
  y: number;
  width: number;
  height: number;
}

export function layoutGraph(items: GraphItem[]): Map<string, Positioned> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 10, ranksep: 48, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const item of items) {
    const more = item.kind === 'more';
    g.setNode(item.id, { width: more ? MORE_WIDTH : NODE_WIDTH, height: more ? MORE_HEIGHT : NODE_HEIGHT });
  }
  // Disconnected roots are ordered by dagre differently from siblings; hanging
  // them under one hidden node makes every level obey the same ordering rule.
  const VIRTUAL = '\u0000root';
  g.setNode(VIRTUAL, { width: 1, height: 1 });
  for (const item of items) g.setEdge(item.parent !== null && g.hasNode(item.parent) ? item.parent : VIRTUAL, item.id);
  // A tree drawn in start order has no crossings to minimise, and that phase is
  // dagre's slowest (measured here: 131 nodes 150–280 ms with it, 60–100 ms without).
  dagre.layout(g, { disableOptimalOrderHeuristic: true });
  // With the order heuristic off, dagre keeps insertion (= start) order within each rank.
  const out = new Map<string, Positioned>();
  for (const item of items) {
    const n = g.node(item.id) as { x: number; y: number; width: number; height: number };
    // dagre gives centres; React Flow wants top-left corners.
    out.set(item.id, { item, x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height });
  }
  return out;
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
