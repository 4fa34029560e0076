/**
 * Data lineage: which earlier outputs flowed into each step. Inferred, in
 * one pass over the run in time order, from
 *  - explicit links: `metadata.tool_call_id` (the LLM output that issued the
 *    call feeds the tool; the tool's result feeds whoever quotes the id) and
 *    state keys (`metadata.reads` after `metadata.writes`), weight 3;
 *  - values (dates, ids, e-mails, URLs weigh 2; numbers and names 1) and word
 *    5-shingles of an earlier output reappearing in a later input, looked up
 *    in an index holding the latest producer of each value — so the cost is
 *    linear in the text, never quadratic in the steps;
 *  - a parent's output drawing on its children's outputs;
 *  - an output with no text (an empty result) feeding the next sibling,
 *    since there is nothing to match but the next step received it;
 *  - adjacency, weight 1: the sibling that ended just before a step
 *    started, so that one shared name or number with it is enough.
 * A producer needs weight 2 to count. -1 stands for the run's own input.
 */
import type { Json } from '../../../src-shared/trace-format';
import type { Settings } from '../scoring/settings';
import { isEmptyPayload, isObj, jsonText, llmText } from '../text/json-text';
import { isAncestor, type RunGraph } from './run-graph';
import { IntMap } from './int-map';
import { float64Cells, int32Cells } from './scratch-arrays';
import { StepLists, StepListsBuilder, stepListsOf } from './step-lists';
import { StringIndex } from './string-index';
import { ValueIndex } from './value-index';
import { WordStartSet } from './word-start-set';
import { F_OUTPUT, S_OK, T_LLM } from './step-codes';
import { KIND_WEIGHT_BY_CODE, newHashScan, scanHashes, scanJson, scanText, type Value } from './value-features';

export const RUN_INPUT = -1;
export const NOT_SEEN = -2;

/** What an edge rests on (bits, so that one edge can carry several kinds of evidence). */
const VIA_VALUE = 1;
export const VIA_STATE = 2;
export const VIA_CALL = 4;
const VIA_ADJACENT = 8;
export const VIA_EMPTY = 16;
/** A child's output that reappears in its parent's output. */
export const VIA_CHILD = 32;

/**
 * Every producer → consumer edge the inference accepted (run input excluded),
 * in the order they were found, with the evidence bits and total weight:
 * flat typed arrays, valid for the first `count` entries.
 */
interface LineageEdgeList {
  from: Int32Array;
  to: Int32Array;
  bits: Int32Array;
  weight: Int32Array;
  count: number;
}

export interface Lineage {
  /** The earlier steps whose outputs fed each step's input (RUN_INPUT for the run's input), ascending. */
  inProducers: StepLists;
  /** The children whose outputs fed each parent's output, ascending. */
  outProducers: StepLists;
  /** 1 when a step's input matched nothing and is taken to come from its parent's input. */
  fromParent: Uint8Array;
  /** Who consumed each step's output, ascending. */
  consumers: StepLists;
  /** Word-sequence hashes of each step's input and output (see scanJson; 30 bits, so Int32 cells from the scratch arrays). */
  inHash: Int32Array;
  outHash: Int32Array;
  /** Text of a step's input or output, computed on first use. */
  inTextOf(p: number): string;
  outTextOf(p: number): string;
  /** Value hashes found in the inputs of tool and retrieval steps (the lookups). */
  lookupInputHashes: { has(h: number): boolean };
  /** Value hashes of a step's input or output, computed on first use. */
  inHashesOf(p: number): Set<number>;
  outHashesOf(p: number): Set<number>;
  /** Full values of a step's input or output (with text to quote), computed on first use. */
  inValuesOf(p: number): Value[];
  outValuesOf(p: number): Value[];
  runInputText: string;
  runInputValues: Value[];
  /** Value hash (Value.h) -> first position whose input or output held it (RUN_INPUT for the run input; NOT_SEEN if none). */
  firstSeen: { get(h: number, missing: number): number };
  finalProducer: number;
  edges: LineageEdgeList;
}

/**
 * Votes for "this earlier step fed that one": a link needs LINK_VOTES. A declared link (a state key the step
 * reads, the tool call id it answers) is certain and outvotes anything; the next sibling after one that returned
 * an empty output links to it alone (an empty result has no value to follow); the sibling that ended just before,
 * or one shared shingle or common value, does not.
 */
const LINK_VOTES = 2;
const DECLARED_VOTES = 3;
const EMPTY_WAIT_VOTES = 2;

function keysOf(v: Json | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** Writes the tool-call ids found in `v` into ids[n...] and returns the new count (no allocation once `ids` has grown). */
function collectCallIds(v: Json | null | undefined, depth: number, ids: string[], n: number): number {
  if (depth > 4 || v === null || v === undefined || typeof v !== 'object') return n;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n = collectCallIds(v[i], depth + 1, ids, n);
    return n;
  }
  const calls = v.tool_calls;
  if (Array.isArray(calls)) {
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i];
      if (isObj(c) && typeof c.id === 'string') ids[n++] = c.id;
    }
  }
  if ((v.type === 'tool_use' || v.type === 'function_call') && typeof v.id === 'string') ids[n++] = v.id;
  if (Array.isArray(v.content)) n = collectCallIds(v.content, depth + 1, ids, n);
  if (isObj(v.message)) n = collectCallIds(v.message, depth + 1, ids, n);
  if (Array.isArray(v.choices)) n = collectCallIds(v.choices, depth + 1, ids, n);
  return n;
}

class EndHeap {
  private items: number[] = [];
  constructor(
    private readonly end: Float64Array,
    private readonly depth: Int32Array,
  ) {}
  private less(a: number, b: number): boolean {
    return this.end[a] < this.end[b] || (this.end[a] === this.end[b] && (this.depth[a] > this.depth[b] || (this.depth[a] === this.depth[b] && a < b)));
  }
  get size(): number {
    return this.items.length;
  }
  peek(): number {
    return this.items[0];
  }
  push(x: number): void {
    const h = this.items;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      const t = h[i];
      h[i] = h[p];
      h[p] = t;
      i = p;
    }
  }
  pop(): number {
    const h = this.items;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l], h[m])) m = l;
        if (r < h.length && this.less(h[r], h[m])) m = r;
        if (m === i) break;
        const t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
      }
    }
    return top;
  }
}

/**
 * The lineage's edge list, sized for one edge per step and grown by doubling. Grown from 1,024, a 100,000-step
 * run (~0.5 edges per step) made and copied four new arrays 6 times; from the scratch arrays, the next blame of
 * the same length reuses them.
 */
function newEdgeList(steps: number): LineageEdgeList {
  const cap = Math.max(1024, steps);
  return { from: int32Cells(cap), to: int32Cells(cap), bits: int32Cells(cap), weight: int32Cells(cap), count: 0 };
}

function pushEdge(edges: LineageEdgeList, from: number, to: number, bits: number, weight: number): void {
  if (edges.count === edges.from.length) {
    const grow = (a: Int32Array): Int32Array => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    edges.from = grow(edges.from);
    edges.to = grow(edges.to);
    edges.bits = grow(edges.bits);
    edges.weight = grow(edges.weight);
  }
  const i = edges.count++;
  edges.from[i] = from;
  edges.to[i] = to;
  edges.bits[i] = bits;
  edges.weight[i] = weight;
}

/**
 * Calls start(p) for each live step in start order and end(q) for each finished step as soon as the clock has
 * passed its end, so a step only sees outputs that existed when it started.
 */
function walkInTimeOrder(g: RunGraph, start: (p: number) => void, end: (q: number) => void): void {
  const n = g.steps.length;
  // Filled as the walk reaches each step (the heap only holds steps already reached): one pass over the step
  // objects, not two; on a 100,000-step run each pass over them misses the cache (~5-10 ms, profiled).
  const endAt = float64Cells(n);
  const heap = new EndHeap(endAt, g.depth);
  for (let p = 0; p < n; p++) {
    const s = g.steps[p];
    endAt[p] = s.ended_at ?? Number.POSITIVE_INFINITY;
    // Clocks tick in milliseconds: a parent that "ends" in the millisecond its child starts has not ended before it.
    while (heap.size > 0) {
      const top = heap.peek();
      if (endAt[top] > s.started_at || (endAt[top] === s.started_at && isAncestor(g, top, p))) break;
      end(heap.pop());
    }
    if (!g.live[p]) continue;
    start(p);
    if (s.ended_at !== null && s.status !== 'running') heap.push(p);
  }
  while (heap.size > 0) end(heap.pop());
}

/** The reverse of the producer lists: who consumed each step's output, each list ascending. */
function consumersOf(n: number, inProducers: StepLists, outProducers: StepLists): StepLists {
  // Counted first, then filled in consumer order: two passes, no array per step.
  const start = int32Cells(n + 1);
  for (let p = 0; p < n; p++) {
    for (let i = 0, k = inProducers.count(p); i < k; i++) {
      const q = inProducers.at(p, i);
      if (q >= 0) start[q + 1]++;
    }
    for (let i = 0, k = outProducers.count(p); i < k; i++) start[outProducers.at(p, i) + 1]++;
  }
  for (let q = 0; q < n; q++) start[q + 1] += start[q];
  const items = int32Cells(start[n]);
  const fill = int32Cells(n);
  fill.set(start.subarray(0, n));
  for (let p = 0; p < n; p++) {
    for (let i = 0, k = inProducers.count(p); i < k; i++) {
      const q = inProducers.at(p, i);
      if (q >= 0) items[fill[q]++] = p;
    }
    for (let i = 0, k = outProducers.count(p); i < k; i++) items[fill[outProducers.at(p, i)]++] = p;
  }
  return new StepLists(start, items);
}

/** Texts, value hashes and values of each step's input and output, computed on first use and cached. */
function lazyStepViews(g: RunGraph, maxChars: number): Pick<Lineage, 'inTextOf' | 'outTextOf' | 'inHashesOf' | 'outHashesOf' | 'inValuesOf' | 'outValuesOf'> {
  const inCache = new Map<number, string>();
  const outCache = new Map<number, string>();
  const inValCache = new Map<number, Value[]>();
  const outValCache = new Map<number, Value[]>();
  const fullOpts = { maxChars, shingles: false };
  const hashOpts = { maxChars, shingles: false, values: 'hash' as const };
  const inHashCache = new Map<number, Set<number>>();
  const outHashCache = new Map<number, Set<number>>();
  const hashSet = (v: Json | null): Set<number> => new Set(scanJson(v, hashOpts).valueHashes);
  return {
    inTextOf(p) {
      let t = inCache.get(p);
      if (t === undefined) inCache.set(p, (t = jsonText(g.steps[p].input, maxChars)));
      return t;
    },
    outTextOf(p) {
      let t = outCache.get(p);
      if (t === undefined) outCache.set(p, (t = jsonText(g.steps[p].output, maxChars)));
      return t;
    },
    inHashesOf(p) {
      let v = inHashCache.get(p);
      if (v === undefined) inHashCache.set(p, (v = g.live[p] ? hashSet(g.steps[p].input) : new Set()));
      return v;
    },
    outHashesOf(p) {
      let v = outHashCache.get(p);
      if (v === undefined) outHashCache.set(p, (v = g.live[p] && g.steps[p].status !== 'running' ? hashSet(g.steps[p].output) : new Set()));
      return v;
    },
    inValuesOf(p) {
      let v = inValCache.get(p);
      if (v === undefined) inValCache.set(p, (v = g.live[p] ? scanJson(g.steps[p].input, fullOpts).values : []));
      return v;
    },
    outValuesOf(p) {
      let v = outValCache.get(p);
      if (v === undefined) outValCache.set(p, (v = g.live[p] && g.steps[p].status !== 'running' ? scanJson(g.steps[p].output, fullOpts).values : []));
      return v;
    },
  };
}

export function inferLineage(g: RunGraph, settings: Settings): Lineage {
  const n = g.steps.length;
  const L = settings.lineage;
  const maxChars = L.max_tokens_per_field * 8;
  const inProducers = new StepListsBuilder(n, n);
  // Only parents have output producers: a map, not an array of 100,000 mostly empty lists (run-graph.ts says why).
  const outProducers = new Map<number, number[]>();
  const fromParent = new Uint8Array(n);
  const inHash = int32Cells(n);
  const outHash = int32Cells(n);
  // Sized for a couple of distinct values and shingles per step; they grow as needed. Each value's latest
  // producer, first position and looked-up flag share one slot (value-index.ts says why).
  const values = new ValueIndex(n * 2, NOT_SEEN);
  const latestShingle = new IntMap(n * 2);
  const writers = new Map<string, number>();
  // Call ids are issued by LLM steps, about one each in an agent loop.
  let llmSteps = 0;
  for (let p = 0; p < n; p++) if (g.types[p] === T_LLM) llmSteps++;
  const callOwner = new StringIndex(llmSteps);
  const awaiting = new Map<number, number[]>();
  const lastEnded = new Map<number, number>();

  const detail = g.detail;
  // Short outputs (2 to k-1 words) are indexed by their whole-text hash and found inside longer inputs.
  const shortStarts = new WordStartSet(n);
  const scanOpts = { k: L.shingle_tokens, maxChars, values: 'hash' as const, shortPhraseStarts: shortStarts };
  const idScanOpts = { values: 'hash' as const, shingles: false };
  const hs = newHashScan();
  const idScan = newHashScan();
  const callIds: string[] = [];
  const runInputText = jsonText(detail.run.input, maxChars);
  const runScan = scanText(runInputText, { k: L.shingle_tokens, maxChars });
  const runInputValues = runScan.values;
  for (const h of runScan.shingles) latestShingle.set(h, RUN_INPUT);
  for (const v of runInputValues) {
    const at = values.insert(v.h);
    values.setLatest(at, RUN_INPUT);
    values.setFirst(at, RUN_INPUT);
  }

  // Votes of one step for its producers: a handful of candidates, kept in
  // two small arrays rather than a Map (this runs for every field of every step).
  const MAX_CANDIDATES = 64;
  const voteIds = new Int32Array(MAX_CANDIDATES);
  const voteW = new Int32Array(MAX_CANDIDATES);
  const voteBits = new Int32Array(MAX_CANDIDATES);
  let voteCount = 0;
  const vote = (p: number, w: number, bit: number): void => {
    if (p === NOT_SEEN) return;
    for (let i = 0; i < voteCount; i++) {
      if (voteIds[i] === p) {
        voteW[i] += w;
        voteBits[i] |= bit;
        return;
      }
    }
    if (voteCount < MAX_CANDIDATES) {
      voteIds[voteCount] = p;
      voteBits[voteCount] = bit;
      voteW[voteCount++] = w;
    }
  };
  // The accepted candidates of the last chosen() call, with their evidence, for the edge list.
  const pickIds = new Int32Array(MAX_CANDIDATES);
  const pickW = new Int32Array(MAX_CANDIDATES);
  const pickBits = new Int32Array(MAX_CANDIDATES);
  let pickCount = 0;
  /** Fills pickIds (and their evidence) with the candidates that reached LINK_VOTES, and clears the votes. */
  const choose = (self: number): void => {
    pickCount = 0;
    for (let i = 0; i < voteCount; i++) {
      if (voteW[i] >= LINK_VOTES && voteIds[i] !== self) {
        pickIds[pickCount] = voteIds[i];
        pickW[pickCount] = voteW[i];
        pickBits[pickCount++] = voteBits[i];
      }
    }
    voteCount = 0;
  };
  const edges = newEdgeList(n);
  const addEdge = (from: number, to: number, bits: number, weight: number): void => pushEdge(edges, from, to, bits, weight);

  const start = (p: number): void => {
    const s = g.steps[p];
    scanHashes(s.input, scanOpts, hs);
    inHash[p] = hs.contentHash;
    const vh = hs.valueHashes;
    const vk = hs.valueKinds;
    const vn = hs.valueCount;
    const lookup = s.type === 'tool' || s.type === 'retrieval';
    for (let i = 0; i < vn; i++) {
      const at = values.insert(vh[i]);
      if (lookup) values.markLookedUp(at);
      vote(values.latestAt(at), KIND_WEIGHT_BY_CODE[vk[i]], VIA_VALUE);
      values.seen(at, p);
    }
    const shingles = hs.shingles;
    const sn = hs.shingleCount;
    for (let i = 0; i < sn; i++) vote(latestShingle.get(shingles[i], NOT_SEEN), 1, VIA_VALUE);
    const meta = s.metadata;
    if (meta.reads !== undefined) for (const key of keysOf(meta.reads)) vote(writers.get(key) ?? NOT_SEEN, DECLARED_VOTES, VIA_STATE);
    const callId = meta.tool_call_id;
    if (typeof callId === 'string') vote(callOwner.get(callId, NOT_SEEN), DECLARED_VOTES, VIA_CALL);
    const parentKey = g.parent[p];
    const prev = lastEnded.get(parentKey);
    if (prev !== undefined) vote(prev, 1, VIA_ADJACENT);
    const wait = awaiting.get(parentKey);
    if (wait && wait.length > 0) {
      for (const q of wait) vote(q, EMPTY_WAIT_VOTES, VIA_EMPTY);
      awaiting.delete(parentKey);
    }
    choose(p);
    inProducers.open(p);
    for (let i = 0; i < pickCount; i++) inProducers.add(pickIds[i]);
    inProducers.sortOpen(p);
    for (let i = 0; i < pickCount; i++) if (pickIds[i] >= 0) addEdge(pickIds[i], p, pickBits[i], pickW[i]);
    if (pickCount === 0 && parentKey >= 0) fromParent[p] = 1;
  };

  const end = (q: number): void => {
    const s = g.steps[q];
    scanHashes(s.output, scanOpts, hs);
    outHash[q] = hs.contentHash;
    const vh = hs.valueHashes;
    const vk = hs.valueKinds;
    const vn = hs.valueCount;
    const sh = hs.shingles;
    const sn = hs.shingleCount;
    const words = hs.words;
    const whole = hs.contentHash;
    const firstWord = hs.firstWord;
    const kids = g.children.count(q);
    if (kids > 0 && s.output !== null) {
      for (let i = 0; i < vn; i++) vote(values.latest(vh[i]), KIND_WEIGHT_BY_CODE[vk[i]], VIA_VALUE);
      for (let i = 0; i < sn; i++) vote(latestShingle.get(sh[i], NOT_SEEN), 1, VIA_VALUE);
      choose(q);
      const fromKids: number[] = [];
      for (let i = 0; i < pickCount; i++) {
        const x = pickIds[i];
        if (x >= 0 && g.depth[x] > g.depth[q] && isAncestor(g, q, x)) fromKids.push(x);
      }
      fromKids.sort((a, b) => a - b);
      for (let i = 0; i < pickCount; i++) if (fromKids.includes(pickIds[i])) addEdge(pickIds[i], q, pickBits[i] | VIA_CHILD, pickW[i]);
      // With no values in common, the last healthy child is assumed (no data seen flowing: not an edge).
      if (fromKids.length === 0) {
        for (let k = kids - 1; k >= 0; k--) {
          const c = g.children.at(q, k);
          if (g.live[c] && g.steps[c].status === 'ok') {
            fromKids.push(c);
            break;
          }
        }
      }
      outProducers.set(q, fromKids);
    }
    for (let i = 0; i < vn; i++) {
      const at = values.insert(vh[i]);
      values.setLatest(at, q);
      values.seen(at, q);
    }
    for (let i = 0; i < sn; i++) latestShingle.set(sh[i], q);
    if (words >= 2 && words < L.shingle_tokens) {
      latestShingle.set(whole, q);
      shortStarts.add(firstWord);
    }
    const meta = s.metadata;
    if (meta.writes !== undefined) for (const key of keysOf(meta.writes)) writers.set(key, q);
    if (s.type === 'llm' && s.output !== null && typeof s.output === 'object') {
      const count = collectCallIds(s.output, 0, callIds, 0);
      for (let i = 0; i < count; i++) callOwner.set(callIds[i], q);
    }
    const callId = meta.tool_call_id;
    // Whoever quotes the call id later consumed this result.
    if (typeof callId === 'string') {
      scanHashes(callId, idScanOpts, idScan);
      for (let i = 0; i < idScan.valueCount; i++) values.setLatest(values.insert(idScan.valueHashes[i]), q);
    }
    lastEnded.set(g.parent[q], q);
    if (vn === 0 && sn === 0 && isEmptyPayload(s.output) !== null) {
      const list = awaiting.get(g.parent[q]);
      if (list) list.push(q);
      else awaiting.set(g.parent[q], [q]);
    }
  };

  walkInTimeOrder(g, start, end);
  const inLists = inProducers.done();
  const outLists = stepListsOf(n, outProducers);
  const consumers = consumersOf(n, inLists, outLists);
  const lin: Lineage = {
    inProducers: inLists,
    outProducers: outLists,
    fromParent,
    consumers,
    inHash,
    outHash,
    lookupInputHashes: { has: (h) => values.lookedUp(h) },
    ...lazyStepViews(g, maxChars),
    runInputText,
    runInputValues,
    // A value only ever produced (a tool-call id's) was never seen in an input or output: first is NOT_SEEN.
    firstSeen: {
      get: (h, missing) => {
        const first = values.firstSeen(h);
        return first === NOT_SEEN ? missing : first;
      },
    },
    finalProducer: -1,
    edges,
  };
  lin.finalProducer = findFinalProducer(g, lin);
  return lin;
}

function norm(t: string): string {
  return t.replace(/\s+/g, ' ').trim();
}

/**
 * The step whose output became the run's output: among steps whose output
 * text equals (or contains) the run output, the deepest and latest one; when
 * the run recorded no output, the last root's output followed down to the
 * child that produced it.
 */
function findFinalProducer(g: RunGraph, lin: Lineage): number {
  const n = g.steps.length;
  const runOutput = g.detail.run.output;
  const runHash = scanJson(runOutput, { values: 'none', shingles: false }).contentHash;
  const runWords = scanJson(runOutput, { values: 'none', shingles: false }).words;
  if (runWords > 0) {
    const runLlmHash = scanJson(llmText(runOutput), { values: 'none', shingles: false }).contentHash;
    const candidates: number[] = [];
    const hs = newHashScan();
    const textOnly = { values: 'none' as const, shingles: false };
    for (let p = 0; p < n; p++) {
      if (!g.live[p] || g.statuses[p] !== S_OK || (g.facts[p] & F_OUTPUT) === 0) continue;
      if (lin.outHash[p] === runHash || lin.outHash[p] === runLlmHash) candidates.push(p);
      else if (g.types[p] === T_LLM && typeof g.steps[p].output !== 'string') {
        const s = g.steps[p];
        // The text of a response object (tool calls carry none: nothing to match).
        const text = llmText(s.output);
        if (text === '') continue;
        scanHashes(text, textOnly, hs);
        if (hs.contentHash === runHash || hs.contentHash === runLlmHash) candidates.push(p);
      }
    }
    if (candidates.length === 0) {
      // The run output may quote a step's answer inside more text, or the reverse.
      const runOut = norm(jsonText(runOutput));
      if (runOut.length >= 20) {
        for (let p = 0; p < n; p++) {
          if (!g.live[p] || g.statuses[p] !== S_OK || (g.facts[p] & F_OUTPUT) === 0) continue;
          const t = norm(g.types[p] === T_LLM ? llmText(g.steps[p].output) : lin.outTextOf(p));
          if (t.length >= 20 && (t.includes(runOut) || runOut.includes(t))) candidates.push(p);
        }
      }
    }
    let best = -1;
    for (const c of candidates) {
      if (candidates.some((d) => d !== c && isAncestor(g, c, d))) continue;
      if (best === -1 || c > best) best = c;
    }
    if (best >= 0) return best;
  }
  let root = -1;
  for (let i = g.roots.length - 1; i >= 0; i--) {
    const r = g.roots[i];
    if (g.live[r] && g.steps[r].output !== null) {
      root = r;
      break;
    }
  }
  if (root === -1) {
    for (let p = n - 1; p >= 0; p--) if (g.live[p] && g.steps[p].output !== null) return p;
    return -1;
  }
  let cur = root;
  for (let guard = 0; guard < 1000; guard++) {
    const next = lin.outProducers.of(cur).filter((c) => g.parent[c] === cur);
    if (next.length === 0) break;
    const c = next[next.length - 1];
    if (lin.outHash[c] !== lin.outHash[cur] && g.steps[c].type !== 'llm') break;
    cur = c;
  }
  return cur;
}

/** Every step whose output flowed, directly or not, into `from` (not including it). */
export function upstreamOf(g: RunGraph, lin: Lineage, from: number, limit = Number.POSITIVE_INFINITY): Set<number> {
  const seen = new Set<number>();
  const stack: number[] = [];
  const pushInputs = (p: number): void => {
    for (let i = 0, k = lin.inProducers.count(p); i < k; i++) {
      const q = lin.inProducers.at(p, i);
      if (q >= 0 && !seen.has(q)) stack.push(q);
    }
    if (lin.fromParent[p] && g.parent[p] >= 0) pushInputs(g.parent[p]);
  };
  pushInputs(from);
  for (let i = 0, k = lin.outProducers.count(from); i < k; i++) stack.push(lin.outProducers.at(from, i));
  while (stack.length > 0 && seen.size < limit) {
    const q = stack.pop()!;
    if (seen.has(q) || q === from) continue;
    seen.add(q);
    pushInputs(q);
    for (let i = 0, k = lin.outProducers.count(q); i < k; i++) {
      const c = lin.outProducers.at(q, i);
      if (!seen.has(c)) stack.push(c);
    }
  }
  return seen;
}

/** Shortest path along lineage edges from `cause` to `target`, or null. */
export function forwardPath(g: RunGraph, lin: Lineage, cause: number, target: number): number[] | null {
  if (cause === target) return [cause];
  const prev = new Map<number, number>([[cause, -2]]);
  const queue = [cause];
  for (let i = 0; i < queue.length; i++) {
    const p = queue[i];
    const next = lin.consumers.of(p);
    // A parent's input flows into children that took their input from it.
    for (let i = 0, k = g.children.count(p); i < k; i++) {
      const c = g.children.at(p, i);
      if (lin.fromParent[c]) next.push(c);
    }
    for (const c of next) {
      if (prev.has(c)) continue;
      prev.set(c, p);
      if (c === target) {
        const path = [c];
        let x = p;
        while (x !== -2) {
          path.push(x);
          x = prev.get(x)!;
        }
        return path.reverse();
      }
      queue.push(c);
    }
  }
  return null;
}
