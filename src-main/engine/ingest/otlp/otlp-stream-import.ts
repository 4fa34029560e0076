/**
 * OTLP/JSON import in bounded memory, committed in blocks. Two passes over
 * the file, because the whole-run rules (start order, replay keys, orphans,
 * duplicate calls, upstream errors, the run id) need every span of a trace
 * before the first step can be written:
 *
 * 1. index: every span is parsed and mapped (otlp-import.ts's toStep, so the
 *    same problems are reported) and kept in columns of its trace
 *    (stream/columnar-run-plan.ts: times, flags, token counts, digests of the
 *    call texts, error-shaped lines, ids until planning), from which each
 *    run is planned as run-records.ts's planRun would.
 * 2. write: every span is parsed and mapped again and written with its
 *    planned order, key and parent, a block of records per transaction.
 *    A file of at most ONE_PASS_MAX_BYTES is read once: the first pass keeps
 *    its mapped steps and the write takes them from there (unless a scope
 *    came after its spans, which were mapped without it).
 *
 * Memory is a few dozen bytes per span plus one window of the file and one
 * block, not the file's parsed tree (about 10× its size); a file read once
 * also holds its mapped steps (about 1.2–1.6× its size). A crash loses only
 * the uncommitted block, and importing again stores the same rows (upserts). The import can
 * be cancelled between blocks; what was committed stays, and the file is not
 * marked done, so it is imported again later.
 */
import type { ImportProgress } from '../../../../src-shared/import-progress';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { ImportError } from '../../../../src-shared/model';
import type { Db } from '../../store/open-database';
import { BOM_IGNORED_MESSAGE, invalidUtf8Message, type FileImportResult } from '../import-result';
import type { ForeignIssue, ForeignStep } from '../foreign/foreign-run';
import { ColumnarPlan, TraceColumns } from '../stream/columnar-run-plan';
import { SpanRows } from '../stream/span-rows';
import { startsWithByteOrderMark } from '../stream/json-byte-reader';
import { BOUNDED_BLOCK_RECORDS, StreamedWrites } from '../stream/streamed-writes';
import { runStreamedImport, runStreamedImportAsync, type StreamedImportJob, type StreamedImportOptions } from '../stream/run-streamed-import';
import { StringTable } from '../../text/string-table';
import { i32 } from '../stream/typed-column';
import { spanStep, traceRun } from './otlp-import';
import { hasObjectLine, isJsonLines, MAX_HELD_LINE_BYTES, OtlpSpanStream, type LateFields } from './otlp-span-stream';
import { wholeCharactersEnd } from '../stream/utf8-up-to-cut';

/** Spans handled between two looks at the event loop (async import) and two progress reports. */
const SPANS_PER_TURN = 2000;
/**
 * Largest file read once: its mapped steps are kept from the first pass for the write, which saves the
 * second parse and mapping (~0.7 s CPU of the bench's 46 MB export). Kept steps take 1.2× the file's size in
 * heap for that export and 1.6× for bench/otlp-large-file.ts's spans (after a full GC); in a child process
 * (bench/otlp-large-file.ts) the 46 MB export peaked at 268 MB RSS (197–217 MB read twice), a 48 MB file of
 * the other spans at 263 MB and a 63 MB one at 320 MB. 48 MiB keeps a file read once under the 300 MB the
 * 500 MB file is held to; bigger files stream in two passes in bounded memory.
 */
const ONE_PASS_MAX_BYTES = 48 * 1024 * 1024;

export interface StreamImportOptions extends StreamedImportOptions {
  /** Largest file read once (its mapped steps kept for the write); ONE_PASS_MAX_BYTES unless a test forces either path. */
  onePassMaxBytes?: number;
  /** Longest JSON Lines line held as one string (MAX_HELD_LINE_BYTES); a test lowers it to walk a short line as a huge one. */
  heldLineMaxBytes?: number;
}

const KEPT_POSITION: ForeignStep['position'] = Object.freeze({ line: 0, path: '' });

/** The first pass's mapped steps in file order, for a file read once: its trace, and the file offset after it (for progress). */
interface KeptSteps {
  steps: (ForeignStep | undefined)[];
  traceIds: string[];
  ends: number[];
  /** Each step's line in the file, for the write's messages (its position is let go). */
  lines: number[];
  /** The next to write. */
  next: number;
}

class OtlpStreamImport implements StreamedImportJob {
  private readonly issues: ForeignIssue[] = [];
  private readonly late: LateFields = { resources: new Map(), scopes: new Map() };
  private readonly traces = new Map<string, TraceColumns>();
  /** Span names, shared by every trace of the file. */
  private names = new StringTable();
  /** The first pass's numbers of every span, shared by the traces (a file can hold 100,000s of one-span traces). */
  private rows = new SpanRows();
  private readonly runs = new Map<string, ColumnarPlan>();
  /** The traces with spans on each line too long to hold (walked): a line that breaks leaves their runs incomplete. */
  private readonly walkedLineTraces = new Map<number, Set<string>>();
  private readonly start: number;
  private jsonLines: boolean;
  private phase: 'index' | 'plan' | 'write' | 'done' = 'index';
  /** Traces the first pass found (traceRun names a run after its trace when there are several). */
  private traceCount = 0;
  private stream: OtlpSpanStream;
  /** Set while the file is read once; null when the write reads the file again. */
  private kept: KeptSteps | null;
  /** Where the first pass stopped reading: a JSON Lines file's lines written after it are a later import's. */
  private firstPassEnd = 0;
  /**
   * For a write that reads the file again: a digest of each span the first pass planned (its trace, id, parent and
   * start), in file order, so that a file changed between the passes is found before a span goes to the wrong plan.
   */
  private planned = i32();
  /** The furthest the first pass was reported to have read (progress never goes back). */
  private indexedBytes = 0;
  /** Spans the write has taken, checked against `planned`. */
  private written = 0;

  private readonly size: number;
  private readonly onePassMaxBytes: number;

  constructor(
    private readonly writes: StreamedWrites,
    private readonly fd: number,
    onePassMaxBytes: number,
    private readonly heldLineMaxBytes: number,
  ) {
    this.size = writes.size;
    const bom = startsWithByteOrderMark(fd);
    this.start = bom ? 3 : 0;
    if (bom) this.issues.push({ line: 1, level: 'warning', message: BOM_IGNORED_MESSAGE });
    this.jsonLines = isJsonLines(fd, this.start, heldLineMaxBytes);
    this.stream = new OtlpSpanStream(fd, this.start, this.jsonLines, this.issues, this.late, true, heldLineMaxBytes);
    this.onePassMaxBytes = onePassMaxBytes;
    this.kept = this.keepSteps();
  }

  private keepSteps(): KeptSteps | null {
    return this.size <= this.onePassMaxBytes ? { steps: [], traceIds: [], ends: [], lines: [], next: 0 } : null;
  }

  /**
   * A file read as one document that is JSON Lines after all, as the whole-document parser reads it: more text
   * followed the document (two requests on the first line), or it broke and a line holds an object of its own (a
   * file exporter's file cut at its start). The first pass starts again, nothing having been stored yet.
   */
  private readAgainAsJsonLines(): boolean {
    if (this.jsonLines || !(this.stream.moreText || (this.stream.broken && hasObjectLine(this.fd, this.start)))) return false;
    this.jsonLines = true;
    this.issues.length = this.start > 0 ? 1 : 0; // the BOM's warning stays
    this.late.resources.clear();
    this.late.scopes.clear();
    this.traces.clear();
    this.walkedLineTraces.clear();
    this.planned = i32();
    this.names = new StringTable();
    this.rows = new SpanRows();
    this.kept = this.keepSteps();
    this.stream = new OtlpSpanStream(this.fd, this.start, true, this.issues, this.late, true, this.heldLineMaxBytes);
    return true;
  }

  /** Bytes of the file the current pass has got through. */
  private bytesDone(): number {
    if (this.phase === 'done') return this.size;
    const kept = this.kept;
    if (this.phase === 'write' && kept) return kept.next === 0 ? this.start : kept.ends[kept.next - 1];
    return this.stream.reader.offset;
  }

  progress(): ImportProgress {
    const indexing = this.phase === 'index' || this.phase === 'plan';
    // A first pass that starts again as JSON Lines holds its bar where it was until the new read passes it.
    const bytesDone = indexing ? (this.indexedBytes = Math.max(this.indexedBytes, this.bytesDone())) : this.bytesDone();
    return { file: this.writes.file, phase: indexing ? 'index' : 'write', bytesDone, bytesTotal: this.size };
  }

  /** One turn of work; false when the import is complete. */
  step(): boolean {
    if (this.phase === 'index') this.indexSpans();
    else if (this.phase === 'plan') this.writes.planning(() => this.planRuns());
    else if (this.phase === 'write') this.writeSpans();
    return this.phase !== 'done';
  }

  private indexSpans(): void {
    for (let n = 0; n < SPANS_PER_TURN; n++) {
      const item = this.stream.next();
      if (!item) return this.readAgainAsJsonLines() ? undefined : this.startPlanning();
      const found = spanStep(item, this.issues);
      if (!found) continue;
      const { traceId, spanId, step } = found;
      let trace = this.traces.get(traceId);
      if (!trace) this.traces.set(traceId, (trace = new TraceColumns(item.resource, this.names, undefined, this.rows)));
      trace.add(step, spanId, item.at, this.jsonLines);
      const walking = this.stream.walkingLine;
      if (walking) {
        const traces = this.walkedLineTraces.get(walking);
        if (traces) traces.add(traceId);
        else this.walkedLineTraces.set(walking, new Set([traceId]));
      }
      this.planned.push(spanDigest(traceId, step));
      const kept = this.kept;
      if (kept) {
        // Where the span was is in the trace's columns now (for the plan's messages), and its line below (for the
        // write's); the path is ~10% of a kept step's heap.
        kept.lines.push(step.position.line);
        step.position = KEPT_POSITION;
        kept.steps.push(step);
        kept.traceIds.push(traceId);
        kept.ends.push(this.stream.reader.offset);
      }
    }
  }

  private onBrokenLine(traceId: string): boolean {
    for (const line of this.stream.brokenLines) if (this.walkedLineTraces.get(line)?.has(traceId)) return true;
    return false;
  }

  /** The first pass has read every span: its runs are planned next, a turn at a time. */
  private startPlanning(): void {
    const reader = this.stream.reader;
    this.firstPassEnd = reader.offset;
    // A character cut short at the file's end is no invalid text (the cut is said as a cut), as in the whole import.
    const replaced = reader.invalidUtf8 ? countReplacements(this.fd, this.size) : 0;
    if (replaced > 0) this.issues.push({ line: 1, level: 'warning', message: invalidUtf8Message(replaced) });
    this.traceCount = this.traces.size;
    this.phase = 'plan';
  }

  /**
   * Plans traces in file order, about SPANS_PER_TURN spans of them a turn (a file of 100,000 small traces takes
   * seconds to plan: the engine answers other calls meanwhile); the last turn starts the write.
   */
  private planRuns(): void {
    let spans = 0;
    for (const [traceId, trace] of this.traces) {
      if (spans >= SPANS_PER_TURN) return;
      spans += trace.count;
      // traceRun reads only the run's root candidate of the steps (for the pipeline's name).
      const run = traceRun(traceId, { steps: trace.rootCandidate(), spanToStep: new Map(), resource: trace.resource }, this.traceCount);
      run.steps = [];
      // A document cut off or broken before its end may have lost any run's later spans: none is shown as complete.
      // Nor is a run with spans on a walked line that broke.
      if (this.stream.broken || this.onBrokenLine(traceId)) run.finished = false;
      const plan = trace.plan(run, this.issues);
      // Problems of the plan name the run id of the file; the stored run may be renamed.
      this.writes.startRun(plan);
      this.runs.set(traceId, plan);
      // Let go of this trace's first-pass columns before the next is planned (deleting the current entry is safe while iterating).
      this.traces.delete(traceId);
    }
    this.rows = new SpanRows();
    this.writes.report(this.issues);
    this.phase = 'write';
    // A scope written after its spans was not known when they were mapped (their steps name no scope): read them again.
    if (this.late.scopes.size > 0) this.kept = null;
    // The second pass reports nothing new: the first one said it all. Its blocks are smaller (memory is what it holds down).
    if (!this.kept) {
      this.stream = new OtlpSpanStream(this.fd, this.start, this.jsonLines, [], this.late, false, this.heldLineMaxBytes);
      this.writes.blockRecords = BOUNDED_BLOCK_RECORDS;
    }
  }

  private writeSpans(): void {
    if (this.kept) return this.writeKept(this.kept);
    const discard: ForeignIssue[] = [];
    for (let n = 0; n < SPANS_PER_TURN; n++) {
      let item = this.stream.next();
      // A line appended since the first pass (a file exporter still writing): the file's next import reads it.
      if (item && this.jsonLines && this.stream.reader.offset > this.firstPassEnd) item = null;
      if (!item) {
        if (this.written < this.planned.length) return this.stopChanged(`${this.planned.length - this.written} span(s) read before are gone`);
        return this.finishRuns();
      }
      discard.length = 0;
      const found = spanStep(item, discard);
      if (!found) continue;
      if (this.written >= this.planned.length || this.planned.get(this.written) !== spanDigest(found.traceId, found.step)) {
        return this.stopChanged(this.written >= this.planned.length ? `more spans than the first read found, at line ${item.line}` : `the span at line ${item.line} is not the one read there before`);
      }
      this.written += 1;
      this.nextSpan(found.traceId, found.step, found.step.position.line);
    }
  }

  /** The file changed between the passes: the blocks committed stay, as after a cancel, and the file is read again later. */
  private stopChanged(why: string): void {
    this.writes.report([{ line: 0, level: 'error', message: `the file changed while it was imported (${why}); ${this.writes.stepsWritten} step(s) stored; import it again` }]);
    this.writes.stop();
    this.phase = 'done';
  }

  /** The write of a file read once: the first pass's steps, each let go once its records are built. */
  private writeKept(kept: KeptSteps): void {
    const end = Math.min(kept.steps.length, kept.next + SPANS_PER_TURN);
    while (kept.next < end) {
      const at = kept.next++;
      const step = kept.steps[at]!;
      kept.steps[at] = undefined;
      this.nextSpan(kept.traceIds[at], step, kept.lines[at]);
    }
    if (kept.next === kept.steps.length) {
      this.kept = null;
      this.finishRuns();
    }
  }

  /** The records of a trace's next span (none for a repeated id's copy), at `line`; a run written to its end is ended and let go. */
  private nextSpan(traceId: string, step: ForeignStep, line: number): void {
    const plan = this.runs.get(traceId);
    if (!plan) return;
    if (plan.nextSpan(step, this.writes.pending)) this.writes.stepAdded(line);
    if (plan.finished) {
      this.writes.endRun(plan);
      this.runs.delete(traceId);
    }
  }

  private finishRuns(): void {
    this.writes.endRuns(this.runs.values());
    this.phase = 'done';
  }

  cancel(): void {
    // As far as the bar showed (a first pass that started again holds it where it was).
    this.writes.cancel(this.progress().bytesDone, this.phase === 'write', 'spans');
    this.phase = 'done';
  }

  result(newErrors: ImportError[]): FileImportResult {
    return this.writes.result(newErrors);
  }
}

/** A 30-bit digest (FNV-1a) of what places a span in its run's plan. */
function spanDigest(traceId: string, step: ForeignStep): number {
  let h = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x1f, 0x01000193);
  };
  mix(traceId);
  mix(step.id);
  mix(step.parentId ?? '');
  mix(String(step.start));
  return h & 0x3fffffff;
}

/**
 * How many U+FFFD a UTF-8 decode of the file holds, read a window at a time (only when the file is not valid UTF-8),
 * but for the first bytes of a character cut short at its end: the bytes importWhole leaves out by the same rule
 * (wholeCharactersEnd), so that both say the same.
 */
function countReplacements(fd: number, size: number): number {
  const tail = Buffer.alloc(Math.min(3, size));
  fs.readSync(fd, tail, 0, tail.length, size - tail.length);
  const end = size - tail.length + wholeCharactersEnd(tail, tail.length);
  const decoder = new StringDecoder('utf8');
  const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  let count = 0;
  const countIn = (text: string) => {
    for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) count += 1;
  };
  for (let pos = 0; pos < end; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
    if (n <= 0) break;
    pos += n;
    countIn(decoder.write(buf.subarray(0, n)));
  }
  countIn(decoder.end());
  return count;
}

/** The import job, with the defaults of the options a test may lower. */
function newImport(db: Db, fd: number, file: string, size: number, format: string, opts: StreamImportOptions): OtlpStreamImport {
  return new OtlpStreamImport(new StreamedWrites(db, file, size, format), fd, opts.onePassMaxBytes ?? ONE_PASS_MAX_BYTES, opts.heldLineMaxBytes ?? MAX_HELD_LINE_BYTES);
}

/** The import, start to end, on this thread. */
export function importOtlpStreaming(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: StreamImportOptions = {}): FileImportResult {
  return runStreamedImport(db, newImport(db, fd, file, size, format, opts), newErrors, opts);
}

/** The same import, giving the event loop a turn between blocks: other calls are answered, progress reported, and `signal` can stop it. */
export async function importOtlpStreamingAsync(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: StreamImportOptions = {}): Promise<FileImportResult> {
  return runStreamedImportAsync(db, newImport(db, fd, file, size, format, opts), newErrors, opts);
}
