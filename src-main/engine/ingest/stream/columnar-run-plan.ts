/**
 * The streaming import's index of a trace and its plan, in columns. The first
 * pass keeps, per span, only what the whole-run rules read (typed arrays of
 * times, flags, token counts, positions and digests of the call texts; names
 * interned; ids and parents as text until planning); `planColumns` then
 * decides what run-records.ts's `planRun` decides for the whole-document
 * import (start order, replay keys, orphans under synthetic roots, cut
 * cycles, duplicate calls, upstream errors, the root, the same problems in
 * the same order), and keeps for the second pass a few numbers per span.
 *
 * Why not `planRun` on per-span summary objects (ADR 0011, first version):
 * a summary object, its position and the maps `planRun` builds cost ~1.8 KB of
 * RSS per span, so a 630,000-span trace peaked at 1.1–1.5 GB. The rules are
 * mirrored here, on indices; the oracle test (otlp-stream-import.test.ts)
 * compares every stored row and problem with the whole-document import.
 */
import { syntheticParentId } from '../foreign/synthetic-parent-id';
import { TRACE_FORMAT_VERSION, type Json, type TraceError, type TraceRecord } from '../../../../src-shared/trace-format';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { callText, NESTING_TOLERANCE_MS, RECENT_CALLS } from '../foreign/duplicate-llm-calls';
import { stepErrorLines } from '../foreign/upstream-errors';
// The rules' constants and key escaping come from the whole-run planner, so the two cannot drift apart.
import { keySegment, MAX_KEY_CHARS, stepEndRecord } from '../foreign/run-records';
import type { StringTable } from '../../text/string-table';
import { i32, type Column, type Typed } from './typed-column';
import { highHalf, IdSlots, lowHalf, packable, SpanRows, unpack } from './span-rows';


/**
 * A 53-bit digest of a call text (cyrb53), 0 for the empty text. Duplicate detection only asks whether two
 * texts are equal; it compares them within 64 recent calls, so a collision (odds ~2^-53 a pair) is not a concern.
 */
function textDigest(text: string): number {
  if (text === '') return 0;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) || 1;
}

const ERROR = 1;
const HAS_OUTPUT = 2;
/** Both token counts recorded (duplicate detection compares them instead of texts). */
const TOKENS = 4;
const NO_END = 8;
/** A model call: the only steps duplicate detection compares. */
const LLM = 16;
/** Found in a JSON Lines file: its path starts with the request's line. */
const IN_LINES = 32;
/** A later copy of a step id (skipped). */
const REPEATED = 64;

/**
 * Names a step's place in the file for messages, from the three numbers `TraceColumns.add` was given and, for a
 * JSON Lines file, the line. Only messages read it, so a place is kept as numbers until one is needed.
 */
export type PlaceName = (requestLine: number, i: number, j: number, k: number) => string;

/** Where an OTLP span is: its path rebuilt from indices. */
function spanPath(requestLine: number, i: number, j: number, k: number): string {
  return `${requestLine ? `line ${requestLine}: ` : ''}resourceSpans[${i}].scopeSpans[${j}].spans[${k}]`;
}

/**
 * Start order (run-records.ts's orderSteps on node numbers): stable by start, then depth, then node number; a
 * child that starts before its parent waits for it, and is placed right after it (depth first).
 * `parentNode`: -1 for a root; parents form no cycles. A function of its own so its working arrays die with it.
 */
function startOrder(parentNode: Int32Array, nodeStart: Float64Array): Int32Array {
  const N = parentNode.length;
  // Depths (iterative; parents no longer form cycles).
  const depth = new Int32Array(N).fill(-1);
  const chain: number[] = [];
  for (let v = 0; v < N; v++) {
    chain.length = 0;
    let cur = v;
    while (cur !== -1 && depth[cur] === -1) {
      chain.push(cur);
      cur = parentNode[cur];
    }
    let d = cur === -1 ? 0 : depth[cur] + 1;
    for (let i = chain.length - 1; i >= 0; i--) depth[chain[i]] = d++;
  }

  // Start order: stable by start, then depth; a child that starts before its parent waits for it (depth first).
  const sorted = Array.from({ length: N }, (_, v) => v).sort((a, b) => nodeStart[a] - nodeStart[b] || depth[a] - depth[b] || a - b);
  const emitted = new Uint8Array(N);
  const waitHead = new Int32Array(N).fill(-1);
  const waitTail = new Int32Array(N).fill(-1);
  const waitNext = new Int32Array(N).fill(-1);
  const order = new Int32Array(N);
  let placed = 0;
  const stack: number[] = [];
  const children: number[] = [];
  const emit = (first: number) => {
    stack.push(first);
    while (stack.length) {
      const v = stack.pop()!;
      if (emitted[v]) continue;
      order[placed++] = v;
      emitted[v] = 1;
      children.length = 0;
      for (let c = waitHead[v]; c !== -1; c = waitNext[c]) children.push(c);
      waitHead[v] = -1;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  };
  for (const v of sorted) {
    const p = parentNode[v];
    if (p === -1 || emitted[p]) emit(v);
    else {
      if (waitHead[p] === -1) waitHead[p] = v;
      else waitNext[waitTail[p]] = v;
      waitTail[p] = v;
    }
  }
  // Only a parent cycle could leave steps waiting (they were cut above); as planRun, keep them in start order.
  for (const v of sorted) if (!emitted[v]) emit(v);
  sorted.length = 0;
  return order;
}

/** Per position in start order: how many earlier siblings (same parent, roots together) have the same name. */
function occurrences(parentAt: Int32Array, nameAt: Int32Array, occurrence: Int32Array): Int32Array {
  const N = parentAt.length;
  // Siblings in start order, one list per parent (roots share one).
  const head = new Int32Array(N + 1).fill(-1);
  const tail = new Int32Array(N + 1).fill(-1);
  const next = new Int32Array(N).fill(-1);
  for (let at = 0; at < N; at++) {
    const p = parentAt[at] + 1;
    if (head[p] === -1) head[p] = at;
    else next[tail[p]] = at;
    tail[p] = at;
  }
  const seen = new Map<number, number>();
  for (let p = 0; p <= N; p++) {
    if (head[p] === -1) continue;
    seen.clear();
    for (let c = head[p]; c !== -1; c = next[c]) {
      const k = seen.get(nameAt[c]) ?? 0;
      occurrence[c] = k;
      seen.set(nameAt[c], k + 1);
    }
  }
  return occurrence;
}

/** The plan's nodes in start order: synthetic roots are nodes below S, then `unique` (slots) in file order. */
interface StartOrder {
  order: Int32Array;
  S: number;
  unique: number[];
}

/** Columns of a trace, joined at planning. */
interface Joined {
  name: Int32Array;
  flags: Uint8Array;
  start: Float64Array;
  end: Float64Array;
  line: Int32Array;
  at: [Int32Array, Int32Array, Int32Array];
  parentHi: Int32Array;
  parentLo: Int32Array;
  inputTokens: Float64Array;
  outputTokens: Float64Array;
  inputDigest: Float64Array;
  outputDigest: Float64Array;
}


/** The spans of one trace as the first pass keeps them, in file order (a span's slot). */
export class TraceColumns {
  count = 0;
  /** The row of each slot in `rows`. */
  private readonly rowOf = i32();
  private ids: IdSlots;
  private parentText: (string | undefined)[] | undefined;
  /** Span id → step id where they differ (a Traceback export names steps by their own ids). */
  private spanToStep: Map<string, string> | undefined;
  private replayKeys: (string | undefined)[] | undefined;
  /** Error-shaped lines of a step that did not fail (upstream-errors.ts). */
  private errorLines: (string[] | undefined)[] | undefined;
  /** First line of a failed step's error message. */
  private errorMessages: (string | undefined)[] | undefined;
  private joined: Joined | undefined;
  /** Per slot, the slot of its recorded parent (through spanToStep), NO_PARENT or MISSING_PARENT; made once for planning. */
  private parentSlots: Int32Array | undefined;

  /** `placeName`: how messages name a step's place (an OTLP span path unless the file is another format). */
  constructor(
    readonly resource: Record<string, Json>,
    private readonly names: StringTable,
    private readonly placeName: PlaceName = spanPath,
    /** Where the spans' numbers are kept: shared by a file's traces, or the trace's own. */
    private readonly rows: SpanRows = new SpanRows(),
  ) {
    this.ids = new IdSlots(rows, this.rowOf);
  }

  /** `at`: the step's place, as `placeName` reads it; `inLines`: the span came from a JSON Lines file (its path names the line). */
  add(step: ForeignStep, spanId: string, at: [number, number, number], inLines: boolean): void {
    const s = this.count++;
    const rows = this.rows;
    this.rowOf.push(rows.length);
    if (spanId !== step.id) (this.spanToStep ??= new Map()).set(spanId, step.id);
    const first = this.ids.add(step.id);
    const p = step.parentId;
    if (p !== null && packable(p)) {
      rows.parentHi.push(highHalf(p));
      rows.parentLo.push(lowHalf(p));
    } else {
      rows.parentHi.push(0);
      rows.parentLo.push(0);
      if (p !== null) (this.parentText ??= [])[s] = p;
    }
    const llm = step.type === 'llm';
    rows.start.push(step.start);
    rows.end.push(step.end ?? 0);
    const usage = step.usage;
    const tokens = llm && usage?.input_tokens !== undefined && usage.output_tokens !== undefined;
    rows.flags.push((step.status === 'error' ? ERROR : 0) | (step.output ? HAS_OUTPUT : 0) | (tokens ? TOKENS : 0) | (step.end === null ? NO_END : 0) | (llm ? LLM : 0) | (inLines ? IN_LINES : 0) | (first ? 0 : REPEATED));
    if (llm) {
      rows.callOf.push(rows.inputTokens.length);
      rows.inputTokens.push(tokens ? usage.input_tokens! : 0);
      rows.outputTokens.push(tokens ? usage.output_tokens! : 0);
      rows.inputDigest.push(textDigest(callText(step.input)));
      rows.outputDigest.push(textDigest(callText(step.output)));
    } else rows.callOf.push(-1);
    rows.line.push(step.position.line);
    for (let d = 0; d < 3; d++) rows.at[d].push(at[d]);
    // The name last: it is what `rows.length` counts.
    rows.name.push(this.names.intern(step.name));
    if (step.replayKey !== undefined) (this.replayKeys ??= [])[s] = step.replayKey;
    if (step.status === 'error') {
      if (step.error) (this.errorMessages ??= [])[s] = step.error.message.split('\n')[0].trim();
    } else {
      const lines = stepErrorLines(step.input, step.output);
      if (lines.length) (this.errorLines ??= [])[s] = lines;
    }
  }

  private join(): Joined {
    if (this.joined) return this.joined;
    const r = this.rows;
    // Every row this trace's, in slot order (one trace, or rows of its own): each column is taken whole and let go as
    // it is copied, so a 630,000-span trace does not hold two copies. Among other traces' rows, the trace's are
    // picked (the ids still read `rowOf` while the trace is planned); the shared rows stay until every trace is
    // planned, so a big trace beside others holds its numbers twice meanwhile (~57 bytes a span: 36 MB for 630,000).
    const rowOf = this.count === r.length ? null : this.rowOf.copy();
    const flags = rowOf ? r.flags.pick(rowOf) : r.flags.take();
    // The model-call columns hold calls only: the rows of this trace's calls, in slot order.
    let callRows: Int32Array | null = null;
    if (rowOf) {
      const calls: number[] = [];
      for (let s = 0; s < rowOf.length; s++) if (flags[s] & LLM) calls.push(r.callOf.get(rowOf[s]));
      callRows = Int32Array.from(calls);
    }
    const bySlot = <T extends Typed>(c: Column<T>): T => (rowOf ? c.pick(rowOf) : c.take());
    const byCall = <T extends Typed>(c: Column<T>): T => (callRows ? c.pick(callRows) : c.take());
    this.joined = {
      name: bySlot(r.name),
      flags,
      start: bySlot(r.start),
      end: bySlot(r.end),
      line: bySlot(r.line),
      at: [bySlot(r.at[0]), bySlot(r.at[1]), bySlot(r.at[2])],
      parentHi: bySlot(r.parentHi),
      parentLo: bySlot(r.parentLo),
      inputTokens: byCall(r.inputTokens),
      outputTokens: byCall(r.outputTokens),
      inputDigest: byCall(r.inputDigest),
      outputDigest: byCall(r.outputDigest),
    };
    return this.joined;
  }

  /** The run's own fields (run id, pipeline, resource), as otlp-import.ts's traceRun decides them. */
  rootCandidate(): ForeignStep[] {
    // traceRun names the pipeline after the earliest step whose parent is not in the trace.
    const { start, name } = this.join();
    const parents = this.recordedParentSlots();
    let best = -1;
    for (let s = 0; s < this.count; s++) {
      if (parents[s] >= 0) continue;
      if (best === -1 || start[s] < start[best]) best = s;
    }
    if (best === -1) return [];
    return [{ id: this.ids.idOf(best), parentId: null, name: this.names.strings[name[best]], type: 'generic', start: start[best], end: null, status: 'ok', startMetadata: {}, endMetadata: {}, position: { line: 0, path: '' } }];
  }

  private recordedParentSlots(): Int32Array {
    if (this.parentSlots) return this.parentSlots;
    const { parentHi, parentLo } = this.join();
    const slots = new Int32Array(this.count);
    // Most traces name no step by an id of its own: a packed parent is looked up as it is, without its text.
    const direct = this.spanToStep === undefined;
    for (let s = 0; s < this.count; s++) {
      if (direct && (parentHi[s] !== 0 || parentLo[s] !== 0)) {
        const found = this.ids.slotOfPacked(parentHi[s], parentLo[s]);
        slots[s] = found === -1 ? MISSING_PARENT : found;
        continue;
      }
      const p = this.mappedParent(s);
      const found = p === null ? -1 : this.ids.slotOf(p);
      slots[s] = p === null ? NO_PARENT : found === -1 ? MISSING_PARENT : found;
    }
    this.parentSlots = slots;
    return slots;
  }

  /** The recorded parent id of a slot, through spanToStep (as traceRun maps it). */
  private mappedParent(s: number): string | null {
    const { parentHi, parentLo } = this.joined!;
    const p = parentHi[s] === 0 && parentLo[s] === 0 ? (this.parentText?.[s] ?? null) : unpack(parentHi[s], parentLo[s]);
    return p === null ? null : (this.spanToStep?.get(p) ?? p);
  }

  private path(s: number): string {
    const { flags, line, at } = this.joined!;
    return this.placeName(flags[s] & IN_LINES ? line[s] : 0, at[0][s], at[1][s], at[2][s]);
  }

  /** A synthetic root per missing parent, in the order the orphans come (planRun's syntheticRoot), each reported. */
  private syntheticRoots(orphanGroups: Map<string, number[]>, run: ForeignRun, issues: ForeignIssue[], syntheticIds: Map<string, string>): ForeignStep[] {
    const cols = this.joined!;
    const { start, end, flags } = cols;
    const nameOf = (s: number) => this.names.strings[cols.name[s]];
    const synthetic: ForeignStep[] = [];
    const assigned = new Set<string>();
    for (const [missing, children] of orphanGroups) {
      const id = syntheticParentId(missing, (candidate) => this.ids.slotOf(candidate) !== -1 || assigned.has(candidate));
      assigned.add(id);
      syntheticIds.set(missing, id);
      let first = Infinity;
      let last = -Infinity;
      let anyEnd = false;
      for (const c of children) {
        if (start[c] < first) first = start[c];
        if (!(flags[c] & NO_END)) {
          anyEnd = true;
          if (end[c] > last) last = end[c];
        }
      }
      const c0 = children[0];
      synthetic.push({
        id,
        parentId: null,
        name: `(missing parent ${missing})`,
        type: 'generic',
        start: first,
        end: anyEnd ? last : null,
        status: 'ok',
        startMetadata: { synthetic: true, missing_step_id: missing },
        endMetadata: {},
        position: { line: cols.line[c0], path: this.path(c0) },
      });
      issues.push({
        line: cols.line[c0],
        level: 'warning',
        message: `run ${run.runId}: ${children.length} step(s) (first: "${nameOf(c0)}" at ${this.path(c0)}) name parent ${missing}, which is not in the file; kept under a synthetic root and the run is marked incomplete`,
      });
    }
    return synthetic;
  }

  /** Parent cycles: the step of each cycle listed last in the file becomes a root (planRun's breakCycles). */
  private cutCycles(unique: number[], parentSlot: Int32Array, run: ForeignRun, issues: ForeignIssue[]): Uint8Array {
    const cols = this.joined!;
    const ids = this.ids;
    const cut = new Uint8Array(this.count);
    const state = new Uint8Array(this.count);
    for (const first of unique) {
      if (state[first]) continue;
      const path: number[] = [];
      let cur = first;
      while (cur !== -1 && !state[cur]) {
        state[cur] = 1;
        path.push(cur);
        cur = parentSlot[cur];
      }
      if (cur !== -1 && state[cur] === 1) {
        const cycle = path.slice(path.indexOf(cur));
        const c = cycle[cycle.length - 1];
        issues.push({
          line: cols.line[c],
          level: 'warning',
          message: `run ${run.runId}: parents form a cycle of ${cycle.length} step(s) (${cycle
            .slice(0, 4)
            .map((x) => ids.idOf(x))
            .join(' → ')}${cycle.length > 4 ? ' → …' : ''}); step ${ids.idOf(c)} at ${this.path(c)} was made a root`,
        });
        cut[c] = 1;
        parentSlot[c] = -1;
      }
      for (const s of path) state[s] = 2;
    }
    return cut;
  }

  /**
   * Replay keys: only their lengths here, the second pass builds the path-like ones; keys recorded by the
   * source and keys shortened (too long) are kept whole.
   */
  private planKeys(starts: StartOrder, synthetic: ForeignStep[], parentAt: Int32Array, nameAt: Int32Array, occurrence: Int32Array, run: ForeignRun, issues: ForeignIssue[]): Map<number, string> {
    const { order, S } = starts;
    const { ids, names } = this;
    const N = order.length;
    const wholeKeys = new Map<number, string>();
    const keyLength = new Int32Array(N);
    const segmentLength = new Map<number, number>();
    let shortenedKeys = 0;
    for (let at = 0; at < N; at++) {
      const v = order[at];
      const recorded = v < S ? undefined : this.replayKeys?.[starts.unique[v - S]];
      let seg = segmentLength.get(nameAt[at]);
      if (seg === undefined) segmentLength.set(nameAt[at], (seg = keySegment(names.strings[nameAt[at]]).length));
      const ownLength = seg + 1 + String(occurrence[at]).length;
      const p = parentAt[at];
      let length = recorded !== undefined ? recorded.length : p !== -1 && keyLength[p] > 0 ? keyLength[p] + 1 + ownLength : ownLength;
      if (recorded !== undefined) wholeKeys.set(at, recorded);
      if (length > MAX_KEY_CHARS) {
        const id = v < S ? synthetic[v].id : ids.idOf(starts.unique[v - S]);
        const key = `${keySegment(id)}/${keySegment(names.strings[nameAt[at]])}#${occurrence[at]}`;
        wholeKeys.set(at, key);
        length = key.length;
        shortenedKeys += 1;
      }
      keyLength[at] = length;
    }
    if (shortenedKeys) {
      issues.push({ line: 1, level: 'warning', message: `run ${run.runId}: ${shortenedKeys} step(s) nested too deep for a path-like replay key got a key from their own id` });
    }
    return wholeKeys;
  }

  /** Model calls that repeat an earlier one, by position in start order (duplicate-llm-calls.ts, on digests). */
  private duplicateCalls(starts: StartOrder): Map<number, string> {
    const { order, S } = starts;
    const cols = this.joined!;
    const { start, end, flags } = cols;
    const n = this.count;
    const N = order.length;
    const ids = this.ids;
    const duplicates = new Map<number, string>();
    const originals: number[] = [];
    const nested = (inner: number, outer: number) =>
      !(flags[inner] & NO_END) && !(flags[outer] & NO_END) && start[inner] >= start[outer] - NESTING_TOLERANCE_MS && end[inner] <= end[outer] + NESTING_TOLERANCE_MS;
    const { inputDigest: inD, outputDigest: outD, inputTokens: inT, outputTokens: outT } = cols;
    // The model-call columns are in call order: a slot's call number.
    const call = new Int32Array(n);
    for (let s = 0, c = 0; s < n; s++) if (flags[s] & LLM) call[s] = c++;
    const sameCall = (a: number, b: number) => {
      const ca = call[a];
      const cb = call[b];
      if (flags[a] & flags[b] & TOKENS) return inT[ca] === inT[cb] && outT[ca] === outT[cb];
      if (outD[ca] !== 0 && outD[ca] === outD[cb]) return true;
      return inD[ca] !== 0 && inD[ca] === inD[cb] && !(flags[a] & HAS_OUTPUT) && !(flags[b] & HAS_OUTPUT);
    };
    for (let at = 0; at < N; at++) {
      const v = order[at];
      if (v < S) continue;
      const s = starts.unique[v - S];
      if (!(flags[s] & LLM)) continue;
      let original = -1;
      for (let i = originals.length - 1; i >= Math.max(0, originals.length - RECENT_CALLS) && original === -1; i--) {
        const o = originals[i];
        if ((nested(s, o) || nested(o, s)) && sameCall(o, s)) original = o;
      }
      if (original !== -1) duplicates.set(at, ids.idOf(original));
      else originals.push(s);
    }
    return duplicates;
  }

  /** Error text no failed step explains, by position in start order, each reported (upstream-errors.ts). */
  private upstreamErrors(starts: StartOrder, run: ForeignRun, issues: ForeignIssue[]): Map<number, string[]> {
    const { order, S, unique } = starts;
    const cols = this.joined!;
    const nameOf = (s: number) => this.names.strings[cols.name[s]];
    const N = order.length;
    const upstream = new Map<number, string[]>();
    const recorded: string[] = [];
    // forEach visits the slots that have a message, in slot order (the order they were added).
    this.errorMessages?.forEach((m, s) => {
      if (m !== undefined && !(cols.flags[s] & REPEATED) && m.length >= 8) recorded.push(m);
    });
    const explained = (line: string) => recorded.some((m) => line.includes(m.slice(0, 60)) || m.includes(line));
    const seenLines = new Set<string>();
    for (let at = 0; at < N; at++) {
      const v = order[at];
      if (v < S) continue;
      const s = unique[v - S];
      const lines = this.errorLines?.[s];
      if (!lines) continue;
      for (const line of lines) {
        if (seenLines.has(line)) continue;
        seenLines.add(line);
        if (explained(line)) continue;
        const quotes = upstream.get(at);
        if (quotes) quotes.push(line);
        else upstream.set(at, [line]);
        issues.push({
          line: cols.line[s],
          level: 'warning',
          message: `run ${run.runId}: step "${nameOf(s)}" (${this.path(s)}) received error text that no recorded step produced, so a failing call left no trace: "${line}"`,
        });
      }
    }
    return upstream;
  }

  /**
   * The plan of this trace's run (run-records.ts's planRun on these columns), with its problems in `issues`.
   * The ids and parents are let go: the second pass reads them from the spans again.
   */
  plan(run: ForeignRun, issues: ForeignIssue[]): ColumnarPlan {
    const n = this.count;
    const { ids, names } = this;
    const cols = this.join();
    const { start, end, flags } = cols;

    // Repeated ids: the first copy wins.
    const unique: number[] = [];
    for (let s = 0; s < n; s++) {
      if (flags[s] & REPEATED) {
        issues.push({ line: cols.line[s], level: 'warning', message: `${this.path(s)}: step id ${ids.idOf(s)} appears twice in run ${run.runId}; the later copy is skipped` });
        continue;
      }
      unique.push(s);
    }

    // Parents as slots; a parent not in the trace groups its children under a synthetic root (node numbers below `unique`'s).
    const parentSlot = new Int32Array(n).fill(-1);
    const orphanGroups = new Map<string, number[]>();
    const recordedParents = this.recordedParentSlots();
    for (const s of unique) {
      const found = recordedParents[s];
      if (found === NO_PARENT) continue;
      if (found >= 0) parentSlot[s] = found;
      else {
        const p = this.mappedParent(s)!;
        const list = orphanGroups.get(p);
        if (list) list.push(s);
        else orphanGroups.set(p, [s]);
      }
    }
    const syntheticIds = new Map<string, string>();
    const synthetic = this.syntheticRoots(orphanGroups, run, issues, syntheticIds);

    const cut = this.cutCycles(unique, parentSlot, run, issues);

    // Nodes: synthetic roots first, then the unique steps in file order (the order planRun sorts stably from).
    const S = synthetic.length;
    const N = S + unique.length;
    const nodeOfSlot = new Int32Array(n).fill(-1);
    unique.forEach((s, i) => (nodeOfSlot[s] = S + i));
    const synthOf = new Map<string, number>();
    [...orphanGroups.keys()].forEach((missing, i) => synthOf.set(missing, i));
    const parentNode = new Int32Array(N).fill(-1);
    const nodeStart = new Float64Array(N);
    for (let i = 0; i < S; i++) nodeStart[i] = synthetic[i].start;
    const adopted = new Uint8Array(n);
    for (let i = 0; i < unique.length; i++) {
      const s = unique[i];
      nodeStart[S + i] = start[s];
      if (parentSlot[s] !== -1) parentNode[S + i] = nodeOfSlot[parentSlot[s]];
      else if (!cut[s]) {
        const p = this.mappedParent(s);
        const sy = p === null ? undefined : synthOf.get(p);
        if (sy !== undefined) {
          parentNode[S + i] = sy;
          adopted[s] = 1;
        }
      }
    }
    const slotOfNode = (v: number) => unique[v - S];

    const order = startOrder(parentNode, nodeStart);
    const atOfNode = new Int32Array(N);
    for (let at = 0; at < N; at++) atOfNode[order[at]] = at;

    // The plan's per-slot and per-position numbers, written straight into the one array the plan keeps (five
    // arrays copied into one at its end raised a 630,000-span trace's peak by their size): views of it below.
    const packed = new Int32Array(2 * n + 3 * N);
    // Per position in start order: parent position, name, occurrence among same-named siblings.
    const parentAt = packed.subarray(2 * n, 2 * n + N);
    const nameAt = packed.subarray(2 * n + N, 2 * n + 2 * N);
    for (let at = 0; at < N; at++) {
      const v = order[at];
      parentAt[at] = parentNode[v] === -1 ? -1 : atOfNode[parentNode[v]];
      nameAt[at] = v < S ? names.intern(synthetic[v].name) : cols.name[slotOfNode(v)];
    }
    const occurrence = occurrences(parentAt, nameAt, packed.subarray(2 * n + 2 * N));

    const starts: StartOrder = { order, S, unique };
    const wholeKeys = this.planKeys(starts, synthetic, parentAt, nameAt, occurrence, run, issues);

    const duplicates = this.duplicateCalls(starts);
    const upstream = this.upstreamErrors(starts, run, issues);

    // The root: the first parentless step in start order that is not synthetic, else the first synthetic one.
    let rootAt = -1;
    for (let at = 0; at < N; at++) {
      if (parentAt[at] !== -1) continue;
      if (order[at] >= S) {
        rootAt = at;
        break;
      }
      if (rootAt === -1) rootAt = at;
    }
    let minStart = Infinity;
    let maxEnd = -Infinity;
    let allEnded = true;
    for (let v = 0; v < N; v++) {
      if (nodeStart[v] < minStart) minStart = nodeStart[v];
      const e = v < S ? synthetic[v].end : flags[slotOfNode(v)] & NO_END ? null : end[slotOfNode(v)];
      if (e === null) allEnded = false;
      else if (e > maxEnd) maxEnd = e;
    }

    const atOfSlot = packed.subarray(0, n).fill(-1);
    const parentKind = packed.subarray(n, 2 * n);
    for (const s of unique) {
      atOfSlot[s] = atOfNode[nodeOfSlot[s]];
      parentKind[s] = cut[s] ? CUT : adopted[s] ? ADOPTED : AS_RECORDED;
    }
    const syntheticAt = synthetic.map((_, i) => atOfNode[i]);
    this.ids = new IdSlots(this.rows, this.rowOf);
    this.parentText = undefined;
    this.joined = undefined;
    this.parentSlots = undefined;
    return new ColumnarPlan(run, names, {
      packed,
      atOfSlot,
      parentKind,
      parentAt,
      nameAt,
      occurrence,
      wholeKeys: orNone(wholeKeys),
      duplicates: orNone(duplicates),
      upstream: orNone(upstream),
      spanToStep: this.spanToStep ?? (NONE as ReadonlyMap<string, string>),
      synthetic: synthetic.map((step, i) => ({ step, at: syntheticAt[i] })),
      syntheticIds: orNone(syntheticIds),
      rootAt,
      complete: run.finished && orphanGroups.size === 0 && allEnded,
      minStart,
      maxEnd,
    });
  }
}

const NO_PARENT = -1;
const MISSING_PARENT = -2;

const AS_RECORDED = 0;
const CUT = 1;
const ADOPTED = 2;

interface PlanColumns {
  /** The five columns below in one array, in this order (each is a view of it). */
  packed: Int32Array;
  /** Position in start order of each slot (span of the trace in file order); -1 for a later copy of a repeated id. */
  atOfSlot: Int32Array;
  /** How a slot's recorded parent became its final one: as recorded, cut (a cycle), adopted by a synthetic root. */
  parentKind: Int32Array;
  /** Per position in start order: parent position (-1 for a root), name, occurrence among same-named siblings. */
  parentAt: Int32Array;
  nameAt: Int32Array;
  occurrence: Int32Array;
  /** Replay keys that are not parent key + own segment (recorded by the source, or shortened). */
  wholeKeys: ReadonlyMap<number, string>;
  duplicates: ReadonlyMap<number, string>;
  upstream: ReadonlyMap<number, string[]>;
  spanToStep: ReadonlyMap<string, string>;
  synthetic: { step: ForeignStep; at: number }[];
  /** The synthetic root's id for each missing parent (synthetic-parent-id.ts). */
  syntheticIds: ReadonlyMap<string, string>;
  rootAt: number;
  complete: boolean;
  minStart: number;
  maxEnd: number;
}

/** A plan's columns but its per-slot and per-position numbers (ColumnarPlan packs those). */
type PlanMaps = Pick<PlanColumns, 'wholeKeys' | 'duplicates' | 'upstream' | 'spanToStep' | 'synthetic' | 'syntheticIds' | 'rootAt'>;

/** What a plan holds instead of each empty Map: a file of many small traces plans as many runs, each a few Maps. */
const NONE: ReadonlyMap<unknown, never> = new Map<unknown, never>();

function orNone<K, V>(map: Map<K, V>): ReadonlyMap<K, V> {
  return map.size ? map : (NONE as ReadonlyMap<K, V>);
}

/** Replay keys built for the second pass, kept while steps below them are likely to come (bounded). */
const KEY_CACHE_ENTRIES = 65536;

/** A trace's plan as the second pass reads it: records of each step from its span, mapped again. */
export class ColumnarPlan {
  /** Made at the first key asked for, let go after the trace's last span. */
  private keyCache: Map<number, string> | undefined;
  /** Spans of the trace seen by the second pass (their slots, in file order). */
  private seen = 0;
  /**
   * What the spans of the trace read but runStart and runEnd do not: let go after the last span (a file can hold
   * 100,000s of traces). The per-slot and per-position numbers are packed in one array: five typed arrays and
   * their buffers cost ~1 KB a trace, in the heap and out of it, however small the trace.
   */
  private columns: PlanMaps | null;
  private packed: Int32Array;
  /** Slots (spans read) and positions (steps in start order, synthetic roots too) of the trace. */
  private readonly slots: number;
  private readonly positions: number;
  private readonly minStart: number;
  private readonly maxEnd: number;
  /** Whether the run gets a run-end record (complete, with a root). */
  private readonly ends: boolean;
  private rootOutput: Json | undefined;
  private rootStatus: 'ok' | 'error' = 'ok';
  private rootError: TraceError | undefined;
  /** Set once the run-end was given (runEnd), so that it is written once. */
  private ended = false;

  constructor(
    readonly run: ForeignRun,
    private readonly names: StringTable,
    c: PlanColumns,
  ) {
    // A literal of the fields read (a rest spread made a dictionary-mode object, ~0.5 KB a trace more).
    this.columns = { wholeKeys: c.wholeKeys, duplicates: c.duplicates, upstream: c.upstream, spanToStep: c.spanToStep, synthetic: c.synthetic, syntheticIds: c.syntheticIds, rootAt: c.rootAt };
    this.slots = c.atOfSlot.length;
    this.positions = c.parentAt.length;
    this.packed = c.packed;
    this.minStart = c.minStart;
    this.maxEnd = c.maxEnd;
    this.ends = c.complete && c.rootAt !== -1;
  }

  private get c(): PlanMaps {
    if (!this.columns) throw new Error(`run ${this.run.runId}: a span after the last one the first pass read`);
    return this.columns;
  }

  /** The run-start record; `rootInput` is the root step's input (absent while the root's span has not been read again). */
  private runStart(rootInput: Json | undefined): TraceRecord {
    const run = this.run;
    // Built apart, as runStartRecord does: resource facts ride as extra fields the record type does not name.
    const record = {
      type: 'run-start' as const,
      v: TRACE_FORMAT_VERSION,
      run_id: run.runId,
      pipeline: run.pipeline,
      ts: this.minStart,
      ...(run.input !== undefined ? { input: run.input } : rootInput !== undefined ? { input: rootInput } : {}),
      source_format: run.format,
      ...run.extra,
    };
    return record;
  }

  /** The synthetic roots' records, written before any span. */
  private syntheticRecords(out: TraceRecord[]): void {
    for (const { step, at } of [...this.c.synthetic].sort((a, b) => a.at - b.at)) this.stepRecords(step, at, null, out);
  }

  /**
   * The records of the trace's next span in file order (the second pass sees the spans the first one did, in
   * the same order). Returns false for a later copy of a repeated id, which is skipped.
   */
  nextSpan(step: ForeignStep, out: TraceRecord[]): boolean {
    // The run's first records come with its first span: a run is written in few blocks (a one-span trace in one,
    // its run upserts composed), and a run none of whose spans was written (a cancel) is not stored empty.
    if (this.seen === 0) {
      out.push(this.runStart(undefined));
      this.syntheticRecords(out);
    }
    const slot = this.seen++;
    const written = this.spanRecords(slot, step, out);
    if (this.seen === this.slots) {
      // What the spans read is let go (a file can hold 100,000s of traces); the run-end is ready (runEnd).
      this.columns = null;
      this.packed = new Int32Array(0);
      this.keyCache = undefined;
    }
    return written;
  }

  /** Whether the second pass has seen every span of the trace: its run-end can be written. */
  get finished(): boolean {
    return this.seen === this.slots;
  }

  private spanRecords(slot: number, step: ForeignStep, out: TraceRecord[]): boolean {
    const at = this.packed[slot];
    if (at === -1) return false;
    const kind = this.packed[this.slots + slot];
    const recorded = step.parentId === null ? null : (this.c.spanToStep.get(step.parentId) ?? step.parentId);
    const parent = kind === CUT ? null : kind === ADOPTED ? this.c.syntheticIds.get(recorded!)! : recorded;
    this.stepRecords(step, at, parent, out);
    if (at === this.c.rootAt) {
      // The run-start again, now with the root's input (its other fields are the same, and upserts merge).
      if (this.run.input === undefined && step.input !== undefined) out.push(this.runStart(step.input));
      this.rootOutput = step.output;
      this.rootStatus = step.status;
      this.rootError = step.error;
    }
    return true;
  }

  /** The run-end record, or null when the run is incomplete (run-records.ts's runEndRecord) or it was given before. */
  runEnd(): TraceRecord | null {
    if (!this.ends || this.ended) return null;
    this.ended = true;
    const run = this.run;
    return {
      type: 'run-end',
      run_id: run.runId,
      ts: this.maxEnd,
      status: this.rootStatus,
      ...(run.output !== undefined ? { output: run.output } : this.rootOutput !== undefined ? { output: this.rootOutput } : {}),
      ...(this.rootError ? { error: this.rootError } : {}),
    };
  }

  private key(at: number): string {
    const whole = this.c.wholeKeys.get(at);
    if (whole !== undefined) return whole;
    this.keyCache ??= new Map();
    const cached = this.keyCache.get(at);
    if (cached !== undefined) return cached;
    const base = 2 * this.slots;
    const own = `${keySegment(this.names.strings[this.packed[base + this.positions + at]])}#${this.packed[base + 2 * this.positions + at]}`;
    const p = this.packed[base + at];
    const parentKey = p === -1 ? '' : this.key(p);
    const key = parentKey ? `${parentKey}/${own}` : own;
    if (this.keyCache.size >= KEY_CACHE_ENTRIES) this.keyCache.clear();
    this.keyCache.set(at, key);
    return key;
  }

  /** run-records.ts's stepRecords: the step-start (and step-end, when it ended) with its payloads. */
  private stepRecords(step: ForeignStep, at: number, parentId: string | null, out: TraceRecord[]): void {
    const startMetadata: Record<string, Json> = { ...step.startMetadata };
    const duplicateOf = this.c.duplicates.get(at);
    if (duplicateOf !== undefined) startMetadata.duplicate_of = duplicateOf;
    const quotes = this.c.upstream.get(at);
    if (quotes) startMetadata.upstream_error = quotes.length === 1 ? quotes[0] : quotes;
    out.push({
      type: 'step-start',
      run_id: this.run.runId,
      step_id: step.id,
      parent_id: parentId,
      index: at,
      name: step.name,
      step_type: step.type,
      replay_key: this.key(at),
      ts: step.start,
      ...(step.input !== undefined ? { input: step.input } : {}),
      metadata: startMetadata,
    });
    if (step.end !== null) out.push(stepEndRecord(this.run.runId, step, step.end));
  }
}
