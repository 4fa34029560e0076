/**
 * Which of the blame's inferred data-lineage edges (`BlameResult.lineage_edges`)
 * the step graph draws as "data flow". The engine may return 20,000 of them on
 * a big run, while the graph shows a few hundred nodes: every flow is folded
 * onto the nodes on screen, duplicates merge into one drawn edge, and at most
 * `MAX_DATA_FLOW_EDGES` are drawn, so a 10,000-step run stays responsive and
 * readable.
 */
import type { LineageEdge } from '../../../src-shared/analysis';

/** More drawn edges than this are a hairball at any zoom, and slow React Flow's edge pass. */
export const MAX_DATA_FLOW_EDGES = 2000;
/** Flows named in one drawn edge's tooltip; the rest are counted. */
const FLOWS_PER_TOOLTIP = 4;

export interface DataFlowEdge {
  /** Shown node the edge leaves (the flow's source, or its nearest shown ancestor). */
  from: string;
  to: string;
  /** The first few underlying flows, in the engine's order. */
  flows: LineageEdge[];
  /** How many flows were folded into this edge. */
  count: number;
  /** At least one flow runs between these two steps themselves, not between collapsed descendants. */
  direct: boolean;
}

export interface DataFlowSelection {
  edges: DataFlowEdge[];
  /** Distinct drawable edges before the cap. */
  total: number;
}

/** Key of a drawn edge. NUL separates the ids because, unlike '>' or ':', it does not turn up in real step ids. */
export function pairKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

/**
 * Maps a step to itself when shown, else to its nearest shown ancestor, else
 * null (unknown step, or nothing above it is shown). Results are cached along
 * each walked path, so mapping every endpoint of 20,000 flows is linear in the
 * run size even on a 10,000-deep chain. The step tree has no cycles (it
 * re-roots them), so the walk ends.
 */
export function nearestShown(known: (id: string) => boolean, parentOf: (id: string) => string | null, shown: (id: string) => boolean): (id: string) => string | null {
  const cache = new Map<string, string | null>();
  return (id) => {
    if (!known(id)) return null;
    const walked: string[] = [];
    let found: string | null = null;
    for (let cur: string | null = id; cur !== null; cur = parentOf(cur)) {
      if (shown(cur)) {
        found = cur;
        break;
      }
      const cached = cache.get(cur);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      walked.push(cur);
    }
    for (const w of walked) cache.set(w, found);
    return found;
  };
}

/**
 * Folds flows onto shown nodes. A flow whose ends land on the same node (both
 * inside one collapsed subtree) is dropped; `skip` holds pair keys already
 * drawn another way (the blame's lineage path). Over the cap, edges between
 * steps that are themselves shown win over folded ones; otherwise the engine's
 * order (strongest first per step) is kept.
 */
export function selectDataFlow(
  flows: readonly LineageEdge[],
  visibleOf: (id: string) => string | null,
  opts: { skip?: ReadonlySet<string>; max?: number } = {},
): DataFlowSelection {
  const max = opts.max ?? MAX_DATA_FLOW_EDGES;
  const byPair = new Map<string, DataFlowEdge>();
  for (const flow of flows) {
    const from = visibleOf(flow.from);
    const to = visibleOf(flow.to);
    if (from === null || to === null || from === to) continue;
    const key = pairKey(from, to);
    if (opts.skip?.has(key)) continue;
    let edge = byPair.get(key);
    if (!edge) {
      edge = { from, to, flows: [], count: 0, direct: false };
      byPair.set(key, edge);
    }
    edge.count++;
    if (edge.flows.length < FLOWS_PER_TOOLTIP) edge.flows.push(flow);
    if (from === flow.from && to === flow.to) edge.direct = true;
  }
  const all = [...byPair.values()];
  if (all.length <= max) return { edges: all, total: all.length };
  const edges: DataFlowEdge[] = [];
  for (const e of all) if (e.direct && edges.length < max) edges.push(e);
  for (const e of all) if (!e.direct && edges.length < max) edges.push(e);
  return { edges, total: all.length };
}

/** Tooltip text of one drawn edge: each flow's ends, how it was inferred (`via`) and the engine's detail. */
export function dataFlowTitle(edge: DataFlowEdge, nameOf: (id: string) => string): string {
  // Names and details come from the trace: a tooltip is no place for a 100 kB name.
  const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
  const line = (f: LineageEdge) => `${clip(nameOf(f.from), 80)} → ${clip(nameOf(f.to), 80)} · ${f.via}${f.detail ? `: ${clip(f.detail, 200)}` : ''}`;
  const head = edge.count === 1 ? 'data flow' : `${edge.count.toLocaleString('en-US')} data flows`;
  const more = edge.count - edge.flows.length;
  return [head, ...edge.flows.map(line), ...(more > 0 ? [`+${more.toLocaleString('en-US')} more`] : [])].join('\n');
}
