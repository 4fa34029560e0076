/**
 * LangChain / LangSmith run-tree import in bounded memory, committed in
 * blocks, as the OTLP/JSON import streams (otlp/otlp-stream-import.ts). The
 * whole-document parser (langchain-run-tree.ts) holds the parsed tree, about
 * 10× the file; here the file is walked three times (run-tree-walk.ts) and
 * each run is parsed on its own, without its child_runs:
 *
 * 1. scan: only the members that place a run (id, parent, trace, start,
 *    LangChain's order) are parsed; from them every run gets its trace and
 *    its place in that trace's order (run-tree-order.ts, shared with the
 *    whole parser), and the same problems are found.
 * 2. index: every run is parsed and mapped (the shared toStep) and kept in
 *    the columns of its trace (stream/columnar-run-plan.ts), in that order;
 *    then each trace is planned as run-records.ts's planRun would.
 * 3. write: every run is parsed and mapped again and written with its
 *    planned order, key and parent, a block of records per transaction.
 *
 * Passes 2 and 3 give runs in planned order from a walk that hands them out
 * children first, in rounds (rank-rounds.ts); a run read before its turn waits
 * as text (held-run-texts.ts). Anything the walk cannot follow or the file's
 * JSON errors are found before anything is stored, and the caller imports such
 * a file whole (its messages are JSON.parse's). A file cut off mid-write is
 * the exception: its runs complete before the cut are imported, as incomplete
 * runs, and the cut is named.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportProgress } from '../../../../src-shared/import-progress';
import type { ImportError } from '../../../../src-shared/model';
import type { Json } from '../../../../src-shared/trace-format';
import type { Db } from '../../store/open-database';
import { BOM_IGNORED_MESSAGE, type FileImportResult } from '../import-result';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { ColumnarPlan, TraceColumns } from '../stream/columnar-run-plan';
import { StreamedWrites } from '../stream/streamed-writes';
import { runStreamedImport, runStreamedImportAsync, type StreamedImportJob, type StreamedImportOptions } from '../stream/run-streamed-import';
import { MalformedJson, startsWithByteOrderMark, TruncatedJson } from '../stream/json-byte-reader';
import { StringTable } from '../../text/string-table';
import { TextArena } from '../stream/text-arena';
import { f64, i32, u8, type Column } from '../stream/typed-column';
import { looksLikeLangChainRun, notRunIssue, skippedRun, timeMs, toStep, type LcRun } from './langchain-run-tree';
import { assignTraces, childPath, PATH_DEPTH, rootStep, sortRunSteps, tieOrderOf, topPath, type IdLookup, type TopShape } from './run-tree-order';
import { RankRounds, type RunOrder } from './rank-rounds';
import { membersText, parseMembers, RunTreeWalk, topShape, UnusualRunTreeShape, type Capture, type WalkedRun } from './run-tree-walk';
import { HeldRunTexts } from './held-run-texts';
import { renamedCopyIssue, renameRepeatedIds } from './repeated-run-ids';
import { isUtf8UpToCut } from '../stream/utf8-up-to-cut';
import { isObject } from '../foreign/chat-messages';

/** Runs handled between two looks at the event loop (async import) and two progress reports. */
const RUNS_PER_TURN = 2000;
/**
 * File bytes of runs held while they wait for their turn in a round (rank-rounds.ts). A mapped run holds
 * about 1.5–3× its bytes; a nested tree takes about one round per budget of its size.
 */
const REORDER_BUDGET_BYTES = 32 * 1024 * 1024;
/**
 * What a waiting run is charged beyond its own bytes: a mapped step's objects and strings cost a few hundred
 * bytes however small the run is, so a file of tiny runs would otherwise hold far more than the budget says.
 */
const RUN_CHARGE_BYTES = 512;

/**
 * File bytes of the runs whose records wait for one commit (stream/streamed-writes.ts commits at 1,024 records
 * too). A LangChain step's records hold the whole parsed run (its attributes) until their block is committed, so
 * a block of 1,024 records (~600 KB of runs) was about half alive at each scavenge and promoted: measured on a
 * 50 MB file, 35–97 MB promoted against 9 MB with blocks of ~150 KB, in the same CPU time (6.5–7.0 s against
 * 6.2–7.3 s); the 500 MB file's write pass held a ~110 MB heap.
 */
const BLOCK_RUN_BYTES = 128 * 1024;

/** What the scan parses of each run: what places it, and what the whole parser's checks read. */
const SCAN_MEMBERS: ReadonlySet<string> = new Set(['id', 'run_type', 'name', 'start_time', 'parent_run_id', 'trace_id', 'dotted_order', 'execution_order']);

export interface RunTreeStreamOptions extends StreamedImportOptions {
  /** REORDER_BUDGET_BYTES unless a test forces many rounds. */
  reorderBudgetBytes?: number;
}

const NOT_RUN = 0;
const SKIPPED = 1;
const STEP = 2;
/** Inside an object that is not a run: the whole parser never reads it. */
const UNREAD = 3;
/** Still open where the file is cut: not imported (what it holds after the cut is lost), its runs are. */
const CUT = 4;

/**
 * What the scan keeps of every object at a run's place, in the order the walk hands them out: numbers in typed
 * columns, strings as numbers of the import's TextArena (ids, parents, trace ids) or as places in the file.
 */
class ScanColumns {
  parent = i32();
  index = i32();
  depth = i32();
  kind = u8();
  /** Line on which the object starts (a renamed copy of a repeated id is named there). */
  line = i32();
  idLine = i32();
  idEscaped = u8();
  /** Numbers of text strings, NO_TEXT where the member is not a string (for a trace id: or is ''). */
  id = i32();
  explicitParent = i32();
  recordedTrace = i32();
  start = f64();
  /**
   * Where LangChain's own order of a step is in the file, read again only for steps that start together: its
   * value's first byte (NO_TIE for none) and its length in bytes, negative for an execution_order.
   */
  tieAt = f64();
  tieBytes = i32();
  bytes = i32();
  handedOut = i32();
  /** Runs the whole parser skips (no id, no start), with what its message reads. */
  skipped = new Map<number, LcRun>();
  /** The line each value that is not a run starts on (its message names it). */
  notRunLines = new Map<number, number>();
}

/** Not a string (or not the string wanted) where a string's number would be. */
const NO_TEXT = -1;
/** No dotted_order string nor execution_order number: the tie is ''. */
const NO_TIE = -1;
/** The members whose order decides ties (tieOrderOf), located by the scan's walk. */
const TIE_MEMBERS: ReadonlySet<string> = new Set(['dotted_order', 'execution_order']);

/** assignTraces's lookups over TextArena numbers, in typed arrays: its Maps held ~60 MB of heap for 417,000 runs. */
class NumberLookup implements IdLookup<number, number> {
  private readonly values: Int32Array;
  constructor(size: number) {
    this.values = new Int32Array(size).fill(-1);
  }
  get(id: number): number | undefined {
    const v = this.values[id];
    return v === -1 ? undefined : v;
  }
  set(id: number, value: number): void {
    this.values[id] = value;
  }
  delete(id: number): void {
    this.values[id] = -1;
  }
}

class LangChainStreamImport implements StreamedImportJob {
  private readonly start: number;
  private readonly bom: boolean;
  private readonly shape: TopShape;
  private readonly budget: number;
  private phase: 'scan' | 'index' | 'write' | 'done' = 'scan';
  private walk: RunTreeWalk;
  private scan: ScanColumns | null = new ScanColumns();
  /** From the scan on: per opening number. */
  private parent: Int32Array = new Int32Array(0);
  private index: Int32Array = new Int32Array(0);
  private depth: Int32Array = new Int32Array(0);
  private kind: Uint8Array = new Uint8Array(0);
  private line: Int32Array = new Int32Array(0);
  /** Ids, parent ids and trace ids, by number (TextArena): kept for the whole import, outside V8's heap. */
  private readonly text = new TextArena();
  /** Per opening number, a step's parent and id as the whole parser gives them (NO_TEXT for none). */
  private stepParent: Int32Array = new Int32Array(0);
  private stepId: Int32Array = new Int32Array(0);
  /** The id a renamed copy of a repeated id has in the file (repeated-run-ids.ts), by opening number. */
  private readonly originalId = new Map<number, number>();
  private order: RunOrder | null = null;
  /** Where the file ends inside the document (an exporter stopped mid-write): every run is then incomplete. */
  private cut: { offset: number; line: number } | null = null;
  /** File bytes of the runs whose records are pending (BLOCK_RUN_BYTES). */
  private pendingBytes = 0;
  /** Texts of runs read before their turn in a round. */
  private readonly held = new HeldRunTexts();
  private rounds: RankRounds | null = null;
  /** The index pass's first round, which also parses what is not a step (to reject what JSON.parse would). */
  private firstRound = false;
  /** Per trace, its id's text number. */
  private traceIds: number[] = [];
  /** Per trace, the opening number of its root step (-1 for none). */
  private roots = new Int32Array(0);
  private pipelines: (string | undefined)[] = [];
  /** Per trace from its first step until it is planned. */
  private readonly columns: (TraceColumns | null | undefined)[] = [];
  /**
   * A step's place is its opening number; the planner's messages name it as the whole parser does. A field, not
   * a closure made in placeRuns: that would keep placeRuns' working arrays alive as long as any trace's columns.
   */
  private readonly placeName = (_line: number, n: number): string => this.pathOf(n);
  private planIssues: ForeignIssue[][] = [];
  private readonly names = new StringTable();
  private plans: ColumnarPlan[] = [];
  /** Problems found before planning, in the whole parser's order. */
  private readonly issues: ForeignIssue[] = [];
  private readonly file: string;
  private readonly size: number;

  constructor(
    private readonly writes: StreamedWrites,
    private readonly fd: number,
    opts: RunTreeStreamOptions,
  ) {
    this.file = writes.file;
    this.size = writes.size;
    this.bom = startsWithByteOrderMark(fd);
    this.start = this.bom ? 3 : 0;
    this.budget = opts.reorderBudgetBytes ?? REORDER_BUDGET_BYTES;
    this.shape = guarded(() => topShape(fd, this.start));
    this.walk = new RunTreeWalk(fd, this.start, this.shape, () => SCAN_MEMBERS, true, TIE_MEMBERS);
  }

  progress(): ImportProgress {
    // The scan is one walk; the other passes are read in rounds, so their progress is the share of steps given.
    const bytesDone = this.phase === 'done' ? this.size : this.phase === 'scan' ? Math.min(this.size, this.walk.reader.offset) : Math.floor(this.size * this.rounds!.share);
    return { file: this.file, phase: this.phase === 'write' || this.phase === 'done' ? 'write' : 'index', bytesDone, bytesTotal: this.size };
  }

  /** One turn of work; false when the import is complete. Throws UnusualRunTreeShape (before anything is stored) for a file to import whole. */
  step(): boolean {
    if (this.phase === 'scan') guarded(() => this.scanRuns());
    else if (this.phase === 'index') guarded(() => this.indexRuns());
    else if (this.phase === 'write') this.writeRuns();
    return this.phase !== 'done';
  }

  private pathOf(n: number): string {
    // Up the parents until the path stops growing (PATH_DEPTH), then down again.
    const chain: number[] = [];
    for (let m = n; m !== -1; m = this.parent[m]) {
      chain.push(m);
      if (this.depth[m] > 0 && this.depth[this.parent[m]] >= PATH_DEPTH) break;
    }
    const top = chain[chain.length - 1];
    let p = this.depth[top] === 0 ? topPath(this.shape, this.index[top]) : childPath('', this.depth[this.parent[top]], this.index[top]);
    for (let i = chain.length - 2; i >= 0; i--) p = childPath(p, this.depth[chain[i + 1]], this.index[chain[i]]);
    return p;
  }

  // 1. scan ---------------------------------------------------------------------------------------------

  private scanRuns(): void {
    for (let i = 0; i < RUNS_PER_TURN; i++) {
      const item = this.nextScanned();
      if (!item) return this.placeRuns();
      this.scanItem(item, false);
    }
  }

  /** The next object the scan walks to; null at the end of the file, or where it is cut (the objects still open are noted as cut). */
  private nextScanned(): WalkedRun | null {
    try {
      return this.walk.next();
    } catch (err) {
      if (!(err instanceof TruncatedJson)) throw err;
      this.cut = { offset: err.offset, line: this.walk.reader.lineAt(err.offset) };
      for (const open of this.walk.openRuns()) this.scanItem(open, true);
      return null;
    }
  }

  /** What the scan keeps of an object; `cut`: still open where the file ends (not a step, and not reported). */
  private scanItem(item: WalkedRun, cut: boolean): void {
    const s = this.scan!;
    const text = this.text;
    const n = item.n;
    // Every column gets a value per object, so a column's position is the opening number (objects are handed
    // out children first, not in that order: the values are set by number once the scan is over).
    s.handedOut.push(n);
    s.parent.push(item.parent);
    s.index.push(item.index);
    s.depth.push(item.depth);
    s.line.push(item.line);
    s.idLine.push(item.idLine);
    s.idEscaped.push(item.idEscaped ? 1 : 0);
    s.bytes.push(item.ownBytes + RUN_CHARGE_BYTES);
    const value = parseMembers(item);
    const run = (isObject(value) ? value : {}) as LcRun;
    const isRun = looksLikeLangChainRun(value);
    s.id.push(typeof run.id === 'string' ? text.intern(run.id) : NO_TEXT);
    let kind = NOT_RUN;
    let explicitParent = NO_TEXT;
    let start = 0;
    let tieAt = NO_TIE;
    let tieBytes = 0;
    let recordedTrace = NO_TEXT;
    // Not a run: the whole parser reads nothing below it; placeRuns marks its descendants.
    if (!isRun) s.notRunLines.set(n, item.line);
    else {
      if (typeof run.parent_run_id === 'string' && run.parent_run_id !== '') explicitParent = text.intern(run.parent_run_id);
      const id = typeof run.id === 'string' && run.id !== '' ? run.id : null;
      const started = timeMs(run.start_time);
      if (!id || started === null) {
        kind = SKIPPED;
        s.skipped.set(n, { id: run.id ?? null, start_time: run.start_time ?? null });
      } else {
        kind = STEP;
        start = started;
        // tieOrderOf's choice, by where its value is (the last of a repeated key, as JSON.parse keeps).
        const key = typeof run.dotted_order === 'string' ? 'dotted_order' : typeof run.execution_order === 'number' ? 'execution_order' : null;
        const place = key === null ? undefined : item.places?.findLast((p) => p.key === key);
        if (place) {
          tieAt = place.start;
          tieBytes = key === 'dotted_order' ? place.end - place.start : place.start - place.end;
        }
        if (typeof run.trace_id === 'string' && run.trace_id !== '') recordedTrace = text.intern(run.trace_id);
      }
    }
    s.kind.push(cut ? CUT : kind);
    s.explicitParent.push(explicitParent);
    s.start.push(start);
    s.tieAt.push(tieAt);
    s.tieBytes.push(tieBytes);
    s.recordedTrace.push(recordedTrace);
  }

  /** Every run's trace and place in its order, and the whole parser's problems of the file itself. */
  private placeRuns(): void {
    const s = this.scan!;
    for (const m of this.walk.wrapperMembers) JSON.parse(`{${m}}`);
    // A file cut inside a character ends with that character's first bytes, which the reader counts as not UTF-8.
    const invalidUtf8 = this.walk.reader.invalidUtf8 && !(this.cut && isUtf8UpToCut(this.fd, this.start, this.size));
    if (invalidUtf8) throw new UnusualRunTreeShape('invalid UTF-8 (the whole import counts the replaced characters)');
    const handedOut = s.handedOut.take();
    const count = handedOut.length;
    // The scan's columns are in the order objects were handed out: `at[n]` is where object n is in them.
    const at = new Int32Array(count);
    for (let i = 0; i < count; i++) at[handedOut[i]] = i;
    // Read from the chunks where they are: a joined copy and its reordering would be two more arrays each.
    const byNumber = <T extends Int32Array | Uint8Array>(column: Column<T>, out: T): T => {
      for (let n = 0; n < count; n++) out[n] = column.get(at[n]);
      return out;
    };
    this.parent = byNumber(s.parent, new Int32Array(count));
    this.index = byNumber(s.index, new Int32Array(count));
    this.depth = byNumber(s.depth, new Int32Array(count));
    this.kind = byNumber(s.kind, new Uint8Array(count));
    // The others are read where they are.
    const id = (n: number) => s.id.get(at[n]);
    const start = (n: number) => s.start.get(at[n]);
    // Below an object that is not a run nothing is read. One pass in opening order (a parent opens before its
    // children); marking each such object's descendants when it closed was quadratic in a chain of them.
    for (let n = 0; n < count; n++) {
      const p = this.parent[n];
      if (p >= 0 && (this.kind[p] === NOT_RUN || this.kind[p] === UNREAD)) this.kind[n] = UNREAD;
    }
    // A run's line is where its id first appears as an "id" (the whole parser's idLines; escaped ids it does not find).
    const firstLine = new Int32Array(this.text.count).fill(0);
    for (let i = 0; i < count; i++) {
      const k = s.id.get(i);
      const line = s.idLine.get(i);
      if (k === NO_TEXT || s.idEscaped.get(i)) continue;
      if (firstLine[k] === 0 || line < firstLine[k]) firstLine[k] = line;
    }
    this.line = new Int32Array(count);
    for (let n = 0; n < count; n++) this.line[n] = id(n) !== NO_TEXT && firstLine[id(n)] !== 0 ? firstLine[id(n)] : 1;
    for (let n = 0; n < count; n++) if (this.kind[n] === NOT_RUN) this.issues.push(notRunIssue(this.pathOf(n), s.notRunLines.get(n)!));
    for (let n = 0; n < count; n++) if (this.kind[n] === SKIPPED) skippedRun(s.skipped.get(n)!, this.pathOf(n), this.line[n], this.issues);
    if (this.cut) {
      const { line, offset } = this.cut;
      this.issues.push({ line, level: 'error', message: `the file ends inside the LangChain document (line ${line}, byte ${offset}): it was cut off; the runs complete before the cut are imported, and marked incomplete` });
    }

    // Steps in file order, their parents as the whole parser gives them (the nesting parent's id, else parent_run_id).
    // Every per-step array here is typed: a mark-compact during this pass measured its JS arrays (~30 MB live at
    // 417,000 runs), and V8 then let old space grow to ~4× that before the next one (a 177 MB heap).
    this.stepParent = new Int32Array(count).fill(NO_TEXT);
    this.stepId = new Int32Array(count).fill(NO_TEXT);
    let stepCount = 0;
    for (let n = 0; n < count; n++) if (this.kind[n] === STEP) stepCount += 1;
    const steps = new Int32Array(stepCount);
    for (let n = 0, i = 0; n < count; n++) {
      if (this.kind[n] !== STEP) continue;
      steps[i++] = n;
      const p = this.parent[n];
      this.stepParent[n] = p >= 0 && id(p) !== NO_TEXT ? id(p) : s.explicitParent.get(at[n]);
      this.stepId[n] = id(n);
    }
    const stepId = (i: number) => this.stepId[steps[i]];
    const stepParent = (i: number) => (this.stepParent[steps[i]] === NO_TEXT ? null : this.stepParent[steps[i]]);
    const renamedTraces = this.renameCopies(steps, at, stepId, stepParent);
    const recordedTrace = (i: number) => {
      const k = renamedTraces.get(i) ?? s.recordedTrace.get(at[steps[i]]);
      return k === NO_TEXT ? undefined : k;
    };
    const traceOf = assignTraces({ count: stepCount, id: stepId, parent: stepParent, recordedTrace }, () => new NumberLookup(this.text.count), new Int32Array(stepCount));
    // Trace numbers in the order traces are first met (by the trace id's text number), and each trace's steps in
    // file order, one slice of `members` each (from `first[t]` to `first[t + 1]`).
    const traceNumber = new Int32Array(this.text.count).fill(-1);
    const trace = new Int32Array(count).fill(-1);
    const traceIds: number[] = [];
    for (let i = 0; i < stepCount; i++) {
      let t = traceNumber[traceOf[i]];
      if (t === -1) {
        traceNumber[traceOf[i]] = t = traceIds.length;
        traceIds.push(traceOf[i]);
      }
      trace[steps[i]] = t;
      traceOf[i] = t;
    }
    const traceCount = traceIds.length;
    this.traceIds = traceIds;
    const first = new Int32Array(traceCount + 1);
    for (let i = 0; i < stepCount; i++) first[traceOf[i] + 1] += 1;
    for (let t = 0; t < traceCount; t++) first[t + 1] += first[t];
    const traceSizes = new Int32Array(traceCount);
    for (let t = 0; t < traceCount; t++) traceSizes[t] = first[t + 1] - first[t];
    const members = new Int32Array(stepCount);
    const filled = first.slice(0, traceCount);
    for (let i = 0; i < stepCount; i++) members[filled[traceOf[i]]++] = i;
    // LangChain's own order of a step is that of the last step of its id.
    const lastOfId = new Int32Array(this.text.count);
    for (let i = 0; i < stepCount; i++) lastOfId[stepId(i)] = steps[i];
    const rank = new Int32Array(count).fill(-1);
    this.roots = new Int32Array(traceCount);
    for (let t = 0; t < traceCount; t++) {
      // Ties are read from the file while the trace is sorted, and only for steps that start together.
      const ties = new Map<number, string>();
      const tie = (i: number) => {
        let v = ties.get(stepId(i));
        if (v === undefined) ties.set(stepId(i), (v = this.readTie(at[lastOfId[stepId(i)]])));
        return v;
      };
      const sorted = sortRunSteps(members.subarray(first[t], first[t + 1]), (i) => start(steps[i]), tie);
      for (let k = 0; k < sorted.length; k++) rank[steps[sorted[k]]] = k;
      const root = rootStep(sorted, stepId, stepParent);
      this.roots[t] = root === undefined ? -1 : steps[root];
    }
    this.order = { handedOut, trace, rank, bytes: byNumber(s.bytes, new Int32Array(count)), traceSizes };
    this.scan = null;
    this.phase = 'index';
    this.startRounds(true);
  }

  /**
   * Copies of a run id in other trees given ids of their own (repeated-run-ids.ts, as the whole parser does), their
   * children following them, each named at the line its run starts on. Returns the renamed roots' new traces, by
   * step. `steps`: opening numbers of the steps, in file order; `at`: where each object is in the scan's columns;
   * `stepId`, `stepParent`: a step's id and parent (null for none) by its index in `steps`, as they stand now.
   */
  private renameCopies(steps: Int32Array, at: Int32Array, stepId: (i: number) => number, stepParent: (i: number) => number | null): Map<number, number> {
    const s = this.scan!;
    const text = this.text;
    // Built only when an id is repeated (the renaming asks for them only then).
    let stepOf: Int32Array | null = null;
    let taken: Uint8Array | null = null;
    const nestedIn = (i: number): number => {
      if (!stepOf) {
        stepOf = new Int32Array(this.kind.length).fill(-1);
        for (let k = 0; k < steps.length; k++) stepOf[steps[k]] = k;
      }
      const holder = this.parent[steps[i]];
      return holder >= 0 ? stepOf[holder] : -1;
    };
    // Ids of runs, parents and trace ids of steps, as the whole parser's: a new id is none of them.
    const isTaken = (k: number): boolean => {
      if (!taken) {
        taken = new Uint8Array(text.count);
        for (let n = 0; n < this.kind.length; n++) {
          const kind = this.kind[n];
          if ((kind === STEP || kind === SKIPPED || kind === CUT) && s.id.get(at[n]) !== NO_TEXT) taken[s.id.get(at[n])] = 1;
        }
        for (const n of steps) {
          if (this.stepParent[n] !== NO_TEXT) taken[this.stepParent[n]] = 1;
          if (s.recordedTrace.get(at[n]) !== NO_TEXT) taken[s.recordedTrace.get(at[n])] = 1;
        }
      }
      return k < taken.length && taken[k] === 1;
    };
    const copies = renameRepeatedIds<number>(
      {
        count: steps.length,
        id: stepId,
        parent: stepParent,
        recordedTrace: (i) => (s.recordedTrace.get(at[steps[i]]) === NO_TEXT ? undefined : s.recordedTrace.get(at[steps[i]])),
        nestedIn,
      },
      (id, k) => text.intern(`${text.text(id)}~${k}`),
      isTaken,
      () => new NumberLookup(text.count),
    );
    // A step's line is where its id first appears: for a new id, where the copy that got it starts.
    const lineOfId = new Map(copies.renamed.map((r) => [r.to, s.line.get(at[steps[r.step]])]));
    for (const r of copies.renamed) this.issues.push(renamedCopyIssue(text.text(r.from), text.text(r.to), lineOfId.get(r.to)!));
    for (const [i, id] of copies.ids) {
      this.originalId.set(steps[i], this.stepId[steps[i]]);
      this.stepId[steps[i]] = id;
      this.line[steps[i]] = lineOfId.get(id)!;
    }
    for (const [i, parent] of copies.parents) this.stepParent[steps[i]] = parent;
    return copies.traces;
  }

  /** tieOrderOf of the step the scan saw at `i`, its value read from the file again. */
  private readTie(i: number): string {
    const s = this.scan!;
    const at = s.tieAt.get(i);
    if (at === NO_TIE) return '';
    const bytes = s.tieBytes.get(i);
    const buf = Buffer.allocUnsafe(Math.abs(bytes));
    fs.readSync(this.fd, buf, 0, buf.length, at);
    const value = JSON.parse(buf.toString('utf8')) as Json;
    return tieOrderOf(bytes >= 0 ? { dotted_order: value } : { execution_order: value });
  }

  // 2. index and 3. write: rounds ---------------------------------------------------------------------------

  private startRounds(firstOfPass: boolean): void {
    if (firstOfPass) this.rounds = new RankRounds(this.order!, this.budget);
    this.rounds!.planRound();
    const rounds = this.rounds!;
    // The first index round also parses what is not a step: JSON.parse of the whole file would reject a broken one.
    const checkAll = this.phase === 'index' && firstOfPass;
    this.firstRound = checkAll;
    const capture = (n: number): Capture => (rounds.wants(n) || (checkAll && this.kind[n] !== STEP) ? 'all' : null);
    this.walk = new RunTreeWalk(this.fd, this.start, this.shape, capture);
  }

  /** The next run the round wants (null when the round is over, at the end of the file or where the scan found it cut). */
  private nextWanted(): WalkedRun | null {
    for (;;) {
      let item: WalkedRun | null;
      try {
        item = this.walk.next();
      } catch (err) {
        if (err instanceof TruncatedJson && this.cut && err.offset >= this.cut.offset) return null;
        throw err;
      }
      if (!item) return null;
      if (this.rounds!.wants(item.n)) return item;
      if (this.firstRound && this.kind[item.n] !== STEP) parseMembers(item);
    }
  }

  /**
   * A run of the round, to `give` in its trace's planned order: parsed and mapped at once when its turn has come,
   * else its text held outside the heap (held-run-texts.ts) and parsed when its turn comes. `changed` is the
   * message when the run mapped is not the step the scan read there.
   */
  private offerRun(item: WalkedRun, changed: string, give: (step: ForeignStep, n: number) => void): void {
    const rounds = this.rounds!;
    const text = membersText(item);
    rounds.offer(item.n, rounds.isTurn(item.n) ? text : this.held.hold(text), (value, n) => {
      const parent = this.stepParent[n];
      const run = JSON.parse(typeof value === 'string' ? value : this.held.take(value)) as LcRun;
      const step = toStep(run, parent === NO_TEXT ? null : this.text.text(parent), '', this.line[n], []);
      if (!step || step.id !== this.text.text(this.originalId.get(n) ?? this.stepId[n])) throw new UnusualRunTreeShape(changed);
      if (this.originalId.has(n)) step.id = this.text.text(this.stepId[n]);
      give(step, n);
    });
  }

  private indexRuns(): void {
    const rounds = this.rounds!;
    for (let i = 0; i < RUNS_PER_TURN; i++) {
      const item = this.nextWanted();
      if (!item) {
        rounds.endRound();
        if (rounds.done) return this.planRuns();
        return this.startRounds(false);
      }
      this.offerRun(item, 'the file changed while it was read', (step, n) => {
        const t = this.order!.trace[n];
        // Opened at a trace's first step (each holds a few typed arrays; a file can hold many thousand traces).
        const columns = (this.columns[t] ??= new TraceColumns({}, this.names, this.placeName));
        columns.add(step, step.id, [n, 0, 0], false);
        if (n === this.roots[t]) this.pipelines[t] = step.name;
        if (columns.count === this.order!.traceSizes[t]) this.planTrace(t);
      });
    }
  }

  /**
   * A trace is planned as soon as its last step is in, and its columns let go: they take a few MB each
   * whatever the trace's size (chunks of 65,536 values), and a LangSmith export holds thousands of traces.
   */
  private planTrace(t: number): void {
    const run: ForeignRun = { runId: this.text.text(this.traceIds[t]), pipeline: this.pipelines[t] ?? 'langchain run', format: 'langchain', steps: [], extra: { source_file_name: path.basename(this.file) }, finished: this.cut === null };
    const found: ForeignIssue[] = [];
    this.plans[t] = this.columns[t]!.plan(run, found);
    this.columns[t] = null;
    this.planIssues[t] = found;
  }

  /** Every trace planned: the problems in the whole parser's order, the run ids as stored, and each run's first records. */
  private planRuns(): void {
    this.writes.planning(() => {
      for (let t = 0; t < this.plans.length; t++) {
        for (const issue of this.planIssues[t]) this.issues.push(issue);
        this.writes.startRun(this.plans[t]);
      }
    });
    this.planIssues = [];
    if (this.bom) this.issues.push({ line: 1, level: 'warning', message: BOM_IGNORED_MESSAGE });
    this.writes.report(this.issues);
    this.phase = 'write';
    this.startRounds(true);
  }

  private writeRuns(): void {
    const rounds = this.rounds!;
    try {
      for (let i = 0; i < RUNS_PER_TURN; i++) {
        const item = this.nextWanted();
        if (!item) {
          rounds.endRound();
          if (rounds.done) return this.finishRuns();
          return this.startRounds(false);
        }
        this.offerRun(item, 'a run is not what the first passes read', (step, n) => {
          this.plans[this.order!.trace[n]].nextSpan(step, this.writes.pending);
          this.writes.stepAdded(step.position.line);
          this.pendingBytes = this.writes.pending.length === 0 ? 0 : this.pendingBytes + this.order!.bytes[n];
          if (this.pendingBytes >= BLOCK_RUN_BYTES) {
            this.writes.commit(false);
            this.pendingBytes = 0;
          }
        });
      }
    } catch (err) {
      if (!isReadFailure(err)) throw err;
      // Blocks are committed already: stop as a cancel does, and say why.
      this.writes.report([{ line: 0, level: 'error', message: `the file changed while it was imported (${(err as Error).message}); ${this.writes.stepsWritten} step(s) stored; import it again` }]);
      this.writes.stop();
      this.phase = 'done';
    }
  }

  private finishRuns(): void {
    this.writes.endRuns(this.plans);
    this.phase = 'done';
  }

  cancel(): void {
    this.writes.cancel(this.progress().bytesDone, this.phase === 'write', 'runs');
    this.phase = 'done';
  }

  result(newErrors: ImportError[]): FileImportResult {
    return this.writes.result(newErrors);
  }
}

/** JSON the walk or JSON.parse could not read. */
function isReadFailure(err: unknown): boolean {
  return err instanceof UnusualRunTreeShape || err instanceof TruncatedJson || err instanceof MalformedJson || err instanceof SyntaxError;
}

/** Before anything is stored, every reading failure means: import the file whole (its messages are the whole parser's). */
function guarded<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UnusualRunTreeShape || !isReadFailure(err)) throw err;
    throw new UnusualRunTreeShape((err as Error).message);
  }
}

/** The import, start to end, on this thread. Throws UnusualRunTreeShape, before storing anything, for a file to import whole. */
export function importLangChainStreaming(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: RunTreeStreamOptions = {}): FileImportResult {
  return runStreamedImport(db, new LangChainStreamImport(new StreamedWrites(db, file, size, format), fd, opts), newErrors, opts);
}

/** The same import, giving the event loop a turn between blocks: other calls are answered, progress reported, and `signal` can stop it. */
export async function importLangChainStreamingAsync(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: RunTreeStreamOptions = {}): Promise<FileImportResult> {
  return runStreamedImportAsync(db, new LangChainStreamImport(new StreamedWrites(db, file, size, format), fd, opts), newErrors, opts);
}
