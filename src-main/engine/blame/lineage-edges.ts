/**
 * The lineage edges of a run as the UI graph draws them (BlameResult
 * .lineage_edges): one edge per producer → consumer pair that the inference
 * accepted on evidence of data flowing (docs/blame.md §3.3). Plain tree
 * structure is not an edge: a parent whose output was assumed to come from
 * its last child, or a child whose input was assumed to be its parent's, is
 * left out, since nothing was seen flowing.
 *
 * Capped so that a 100k-step run stays cheap to compute, send and draw: the
 * strongest MAX_INTO_STEP edges into a step, MAX_EDGES in all (in the order
 * the run produced them, so a cut keeps the start of the run).
 */
import type { LineageEdge } from '../../../src-shared/analysis';
import type { Json } from '../../../src-shared/trace-format';
import { VIA_CALL, VIA_CHILD, VIA_EMPTY, VIA_STATE, type Lineage } from './lineage';
import type { RunGraph } from './run-graph';

const MAX_INTO_STEP = 5;
const MAX_EDGES = 20_000;

function keysOf(v: Json | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

// One string per weight, shared by every edge of that weight (a large run has thousands of edges, few weights).
const VALUE_DETAIL: string[] = [];
const CHILD_DETAIL: string[] = [];

function weighed(cache: string[], text: string, weight: number): string {
  if (weight >= 256) return `${text} (weight ${weight})`;
  return (cache[weight] ??= `${text} (weight ${weight})`);
}

function describe(g: RunGraph, from: number, to: number, bits: number, weight: number): LineageEdge {
  const a = g.steps[from];
  const b = g.steps[to];
  if (bits & VIA_CALL) {
    const id = b.metadata.tool_call_id;
    return { from: a.step_id, to: b.step_id, via: 'tool_call', detail: typeof id === 'string' ? (id.length <= 80 ? id : id.slice(0, 80)) : undefined };
  }
  if (bits & VIA_STATE) {
    const written = new Set(keysOf(a.metadata.writes));
    const keys = keysOf(b.metadata.reads).filter((k) => written.has(k));
    return { from: a.step_id, to: b.step_id, via: 'state', detail: `state ${keys.slice(0, 3).map((k) => k.slice(0, 40)).join(', ')}` };
  }
  if (bits & VIA_CHILD) return { from: a.step_id, to: b.step_id, via: 'parent', detail: weighed(CHILD_DETAIL, 'child output in parent output', weight) };
  if (bits & VIA_EMPTY) return { from: a.step_id, to: b.step_id, via: 'value', detail: 'empty output passed on to the next step' };
  return { from: a.step_id, to: b.step_id, via: 'value', detail: weighed(VALUE_DETAIL, 'values or phrases in common', weight) };
}

export function lineageEdges(g: RunGraph, lin: Lineage, maxInto = MAX_INTO_STEP, maxEdges = MAX_EDGES): LineageEdge[] {
  const e = lin.edges;
  const into = new Uint8Array(g.steps.length);
  const out: LineageEdge[] = [];
  let i = 0;
  while (i < e.count && out.length < maxEdges) {
    // Edges into one consumer from one inference step are contiguous: keep the strongest of the group.
    let j = i + 1;
    while (j < e.count && e.to[j] === e.to[i] && (e.bits[j] & VIA_CHILD) === (e.bits[i] & VIA_CHILD)) j++;
    const to = e.to[i];
    if (j === i + 1) {
      // The common case, one producer: no group to sort.
      if (into[to] < maxInto) {
        out.push(describe(g, e.from[i], to, e.bits[i], e.weight[i]));
        into[to]++;
      }
      i = j;
      continue;
    }
    let group: number[] = [];
    for (let k = i; k < j; k++) group.push(k);
    group.sort((x, y) => e.weight[y] - e.weight[x] || e.from[x] - e.from[y]);
    const room = maxInto - into[to];
    if (group.length > room) group = group.slice(0, Math.max(0, room));
    for (const k of group) {
      if (out.length >= maxEdges) break;
      out.push(describe(g, e.from[k], to, e.bits[k], e.weight[k]));
      into[to]++;
    }
    i = j;
  }
  return out;
}
