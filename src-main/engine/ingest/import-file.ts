/**
 * Imports one trace file into the store, incrementally.
 *
 * Native files are tailed: bytes are read from the offset stored for the file,
 * complete lines are applied in one transaction per block read (READ_BYTES), and each
 * transaction also advances the stored offset — so a crash loses nothing
 * committed and never re-applies it, and a partial last line waits for more
 * bytes. Foreign formats (OTLP, LangChain, transcripts) are parsed whole
 * and re-parsed when the file changes; upserts keep that idempotent.
 */
import fs from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';
import path from 'node:path';
import type { ImportError } from '../../../src-shared/model';
import type { TraceRecord } from '../../../src-shared/trace-format';
import type { Db } from '../store/open-database';
import { createRecordWriter, runIdsOf, touchRuns } from '../store/write-records';
import { openRead } from '../store/open-read';
import { storeStepCounts } from '../store/step-counts';
import { BULK_IMPORT_MIN_BYTES, deferCheckpoints } from '../store/bulk-write';
import { importErrorsOf, insertImportErrors, readFileState, saveFileState, type FileState } from '../store/import-files';
import { parseTraceLine, type ParsedLine } from './native/parse-lines';
import { detectFileFormat, type DetectedFormat } from './foreign-formats';
import { importForeign } from './import-foreign';
import { BOM_IGNORED_MESSAGE, finish, invalidUtf8Message, isDatabaseFault, truncationMessage, type FileImportResult } from './import-result';
import { collisionMessage, createRunIdResolver } from '../store/run-id-collisions';
import { makeTextWellFormed, WELL_FORMED_MESSAGE } from './native/well-formed-text';
import { HUGE_LINE_BYTES, readHugeLine } from './native/huge-line';
import type { StreamImportOptions } from './otlp/otlp-stream-import';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Bytes read, parsed and committed per transaction: big enough to amortise the commit,
 * small enough that a crash or a huge file keeps making visible progress (~5,000 SDK lines).
 */
const READ_BYTES = 1024 * 1024;
/**
 * A file changed less than this before its last read began is read again when next looked at (skipUnchanged):
 * file systems that keep times to the second (or two: FAT) would otherwise hide a rewrite of the same size made
 * in the second the read began. A file written just before its import is read once more, then left alone.
 */
const UNCHANGED_MARGIN_MS = 2_000;
/**
 * Bytes decoded into one string: a string of up to 64 kB (two bytes per character after a UTF-8 decode) stays
 * under V8's large-object size (128 kB), so it is allocated young and dies young.
 */
const DECODE_BYTES = 32 * 1024;

export type { FileImportResult } from './import-result';

export interface ImportFileOptions {
  /**
   * The file is not expected to grow (a one-shot `tb import`): a last line
   * without newline is read if it is a complete record, and reported otherwise.
   */
  final?: boolean;
  /** Test hook: called after each committed chunk. */
  onChunkCommitted?: (linesSoFar: number) => void;
  /** Test hook: lines longer than this are read piecewise (default HUGE_LINE_BYTES, 32 MB). */
  hugeLineBytes?: number;
  /**
   * A look at the inbox (each `tb` command, the app's watcher): a file read to its end and not changed since is
   * left alone. A file the user names is read again (after an upgrade of a foreign format's mapping, say).
   */
  skipUnchanged?: boolean;
  /** Test hook: UNCHANGED_MARGIN_MS. */
  unchangedMarginMs?: number;
}

export function importFile(db: Db, filePath: string, opts: ImportFileOptions = {}): FileImportResult {
  const opened = openForImport(db, filePath, opts);
  if ('result' in opened) return opened.result;
  try {
    return importOpened(db, opened, opts);
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** A file ready to be read from its stored state: open (its caller closes `fd`), a regular file, its format known. */
export interface OpenedFile {
  fd: number;
  file: string;
  size: number;
  /** Where a native file's reading goes on from. */
  start: FileState;
  format: string;
  /** Problems found while opening (e.g. the file shrank). */
  newErrors: ImportError[];
}

/**
 * Opens a file for import and settles what needs no reading: missing, special, refused and unchanged, or of an
 * unknown format (`result`, the file already closed); otherwise the open file and how to read it.
 */
export function openForImport(db: Db, filePath: string, opts: Pick<ImportFileOptions, 'skipUnchanged' | 'unchangedMarginMs'> = {}): { result: FileImportResult } | OpenedFile {
  const file = path.resolve(filePath);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (process.platform === 'win32' ? 0 : fs.constants.O_NONBLOCK));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const problem: ImportError = { file, line: 0, level: 'error', message: e.code === 'ENOENT' ? 'file not found (or a link to nothing)' : `cannot read file: ${e.message}` };
    return { result: { file, runs: [], changedRuns: [], newErrors: [problem], linesRead: 0 } };
  }
  let keepOpen = false;
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      // FIFOs, devices and sockets are never read: one could block the importer or never end.
      const problem: ImportError = { file, line: 0, level: 'warning', message: `skipped: ${specialKind(st)}, not a regular file` };
      return { result: { file, runs: [], changedRuns: [], newErrors: [problem], linesRead: 0 } };
    }
    const size = st.size;
    let state = readFileState(db, file);
    const newErrors: ImportError[] = [];
    if (state && size < state.offset) {
      // Replaced or truncated by its writer: read it again from the start (upserts are idempotent).
      newErrors.push({ file, line: 0, level: 'warning', message: `file shrank from ${state.offset} to ${size} bytes; re-read from the start` });
      state = { offset: 0, line: 0, format: state.format, refused: null };
    }
    // A refused file is looked at again only when it changes.
    if (state?.refused && state.size === size) return { result: finish(db, file, [], newErrors, 0) };
    // Read to its end and not changed since (its size, and its last change well before that read began): nothing
    // to read. A foreign file was read whole again, and its runs given new versions (so blamed again), at every look
    // at the inbox: each `tb` command and each start of the app, for every trace the OTLP receiver wrote. The
    // change time (ctime) moves with any write, rename onto it or copy, even one that sets an old modification time.
    const changedAt = Math.max(st.mtimeMs, st.ctimeMs);
    const margin = opts.unchangedMarginMs ?? UNCHANGED_MARGIN_MS;
    if (opts.skipUnchanged && state && !state.refused && state.offset === size && state.size === size && state.updated_at !== undefined && changedAt < state.updated_at - margin) {
      return { result: finish(db, file, [], newErrors, 0) };
    }
    if (state?.refused) state = undefined;
    const format: DetectedFormat = state && state.offset > 0 ? { kind: state.format } : detectFileFormat(fd, file);
    if ('message' in format) {
      newErrors.push({ file, line: 1, level: 'error', message: format.message });
      saveFileState(db, file, { offset: 0, line: 0, format: 'unknown', refused: format.message }, size);
      recordErrors(db, newErrors);
      return { result: finish(db, file, [], newErrors, 0) };
    }
    keepOpen = true;
    return { fd, file, size, start: state ?? { offset: 0, line: 0, format: 'native', refused: null }, format: format.kind, newErrors };
  } finally {
    if (!keepOpen) fs.closeSync(fd);
  }
}

/** Reads an opened file on this thread: native files tailed in blocks, foreign ones through import-foreign.ts. */
export function importOpened(db: Db, f: OpenedFile, opts: ImportFileOptions = {}): FileImportResult {
  if (f.format !== 'native') return importForeign(db, f.fd, f.file, f.size, f.format, f.newErrors);
  return importNative(db, f.fd, f.file, f.size, f.start, opts, f.newErrors);
}

function importNative(db: Db, fd: number, file: string, size: number, start: FileState, opts: ImportFileOptions, newErrors: ImportError[]): FileImportResult {
  const blocks = importNativeBlocks(db, fd, file, size, start, opts, newErrors);
  try {
    for (;;) {
      const step = blocks.next();
      if (step.done) return step.value;
    }
  } finally {
    // A caller's hook that throws leaves the generator suspended: close it, so its settings are put back.
    blocks.return(undefined as never);
  }
}

/**
 * The same import with a turn to the event loop after each committed block
 * (the engine's import of a big native file): other calls are answered,
 * progress is reported, and `signal` stops it between two blocks. What was
 * committed stays, and the stored offset makes the next import go on from there.
 */
export async function importNativeAsync(db: Db, f: OpenedFile, opts: ImportFileOptions & StreamImportOptions = {}): Promise<FileImportResult> {
  const blocks = importNativeBlocks(db, f.fd, f.file, f.size, f.start, opts, f.newErrors);
  try {
    for (;;) {
      const step = blocks.next();
      if (step.done) return step.value;
      opts.onProgress?.({ file: f.file, phase: 'write', bytesDone: step.value, bytesTotal: f.size });
      await nextTurn();
    }
  } finally {
    blocks.return(undefined as never);
  }
}

/** Reads and commits the file block by block, yielding the bytes read after each committed block; returns the result. */
function* importNativeBlocks(db: Db, fd: number, file: string, size: number, start: FileState, opts: ImportFileOptions & { signal?: AbortSignal }, newErrors: ImportError[]): Generator<number, FileImportResult> {
  // A big file commits dozens of blocks: their checkpoints wait for its end (store/bulk-write.ts).
  const restoreCheckpoints = size - start.offset >= BULK_IMPORT_MIN_BYTES ? deferCheckpoints(db) : null;
  try {
    return yield* readNativeBlocks(db, fd, file, size, start, opts, newErrors);
  } finally {
    restoreCheckpoints?.();
  }
}

function* readNativeBlocks(db: Db, fd: number, file: string, size: number, start: FileState, opts: ImportFileOptions & { signal?: AbortSignal }, newErrors: ImportError[]): Generator<number, FileImportResult> {
  // When this read began: stored with the file's state, so a change made while it ran is read again (skipUnchanged).
  const readAt = Date.now();
  let writer = createRecordWriter(db);
  const ids = createRunIdResolver(db, file);
  // Runs changed by committed blocks (a writer is replaced after a failed block: its caches were rolled back).
  const touched = new Set<string>();
  let offset = start.offset;
  let line = start.line;
  let linesRead = 0;
  let refused: string | null = null;
  let cancelled = false;
  // Parallel arrays rather than one object per line: this runs for every record of big files.
  let pending: TraceRecord[] = [];
  let pendingLines: number[] = [];
  let pendingProblems: ImportError[] = [];
  let pendingEnd = { offset, line };
  // The last commit also stores the step counts of every run the file wrote (store/step-counts.ts).
  let lastBlock = false;

  const commit = db.transaction(() => {
    const truncated = writer.applyBatch(pending, file);
    for (let i = 0; i < truncated.length; i++) {
      for (const f of truncated[i]) pendingProblems.push({ file, line: pendingLines[i], level: 'warning', message: truncationMessage(f) });
    }
    insertImportErrors(db, pendingProblems);
    // The block's runs only: the writer's list holds every run since the file's first block, and touching all of
    // them at each block made a file of many runs quadratic.
    const blockRuns = runIdsOf(pending);
    touchRuns(db, blockRuns);
    if (lastBlock) storeStepCounts(db, new Set([...touched, ...blockRuns]));
    saveFileState(db, file, { offset: pendingEnd.offset, line: pendingEnd.line, format: 'native', refused, updated_at: readAt }, size);
  });
  const flush = () => {
    for (const r of pending) touched.add(r.run_id);
    try {
      commit();
    } catch (err) {
      // A block that cannot be stored whole is stored record by record, so one bad record costs only
      // its own line and the stored offset still moves on: a tailed file never sticks on it.
      if (isDatabaseFault(err)) throw err;
      commitOneByOne();
    }
    for (const p of pendingProblems) newErrors.push(p);
    pending = [];
    pendingLines = [];
    pendingProblems = [];
    opts.onChunkCommitted?.(linesRead);
  };

  const commitOneByOne = () => {
    const records = pending;
    const lines = pendingLines;
    // The failed transaction rolled back rows this writer believes exist.
    writer = createRecordWriter(db);
    pending = [];
    pendingLines = [];
    for (let i = 0; i < records.length; i++) {
      pending = [records[i]];
      pendingLines = [lines[i]];
      try {
        db.transaction(() => {
          const truncated = writer.applyBatch(pending, file);
          for (const f of truncated[0]) pendingProblems.push({ file, line: lines[i], level: 'warning', message: truncationMessage(f) });
          // Each of these commits gives the run a new version, as a block's commit does (store/write-records.ts).
          touchRuns(db, [records[i].run_id]);
        })();
      } catch (err) {
        if (isDatabaseFault(err)) throw err;
        pendingProblems.push({ file, line: lines[i], level: 'error', message: `record could not be stored (${(err as Error).message}); skipped` });
      }
    }
    pending = [];
    pendingLines = [];
    commit();
  };

  // The unfinished last line of a block (the carry) is moved to the front of the buffer and the next
  // read lands after it: no per-block concatenation (a 1 MB copy per block, 4% of a big import, measured).
  // A file smaller than the buffer gets a buffer of its size: 2 MB for each file of a folder of small runs
  // was an eighth of their import (a fresh allocation each).
  let buf = Buffer.allocUnsafe(Math.min(READ_BYTES * 2, Math.max(0, size - offset)));
  let carry: Buffer = Buffer.alloc(0);
  let carryBytes = 0;
  let pos = offset;
  // Lines of an ASCII block cannot hold unpaired surrogates: their check is skipped.
  let asciiBlock = false;
  outer: while (pos < size) {
    const want = Math.min(READ_BYTES, size - pos);
    if (carryBytes + want > buf.length) {
      // A line longer than the buffer: grow it (a 10 MB junk line is read, reported and skipped).
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, carryBytes + READ_BYTES));
      buf.copy(bigger, 0, 0, carryBytes);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, carryBytes, want, pos);
    if (n <= 0) break;
    pos += n;
    const data = buf.subarray(0, carryBytes + n);
    const lastNl = data.lastIndexOf(10);
    if (lastNl === -1) {
      carryBytes = data.length;
      carry = data;
      if (carryBytes <= (opts.hugeLineBytes ?? HUGE_LINE_BYTES)) continue;
      // A line too long to hold as one string: read from the file piecewise (native/huge-line.ts).
      const bom = line === 0 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf;
      if (bom) pendingProblems.push({ file, line: 1, level: 'warning', message: BOM_IGNORED_MESSAGE });
      const huge = readHugeLine(fd, offset + (bom ? 3 : 0), line + 1, opts.final === true);
      carryBytes = 0;
      carry = buf.subarray(0, 0);
      if (huge.kind === 'unfinished') {
        // Nothing is stored past the line's start: the next import reads it again, whole by then.
        if (huge.problem) pendingProblems.push({ file, ...huge.problem });
        break;
      }
      line += 1;
      linesRead += 1;
      asciiBlock = false;
      const stop = accept(huge.parsed, line);
      offset = huge.end;
      pos = huge.end;
      pendingEnd = { offset, line };
      if (stop) break;
      flush();
      yield pos;
      if (opts.signal?.aborted) {
        cancelled = true;
        pendingProblems.push(cancelledAt());
        break;
      }
      continue;
    }
    // Decode the block's complete lines a window at a time (a per-line decode costs more than JSON.parse),
    // and commit once per block: the stored offset is then the byte after the block's last newline.
    // Windows end at a newline, so they decode exactly as the whole block would, and stay below V8's
    // large-object size: a 1 MB string per block went to the old generation and brought on collections
    // (measured as 15% of a big import). An ASCII block (nearly every SDK trace: JSON escapes non-ASCII by
    // default in Python) is copied as Latin-1, about twice as fast as a UTF-8 decode, and needs no validity check.
    const ascii = isAscii(data.subarray(0, lastNl));
    asciiBlock = ascii;
    const encoding = ascii ? 'latin1' : 'utf8';
    // Invalid UTF-8 is decoded to U+FFFD; the lines where that happened are reported, not silently changed.
    const badUtf8 = !ascii && !isUtf8(data.subarray(0, lastNl));
    let windowStart = 0;
    // The block's run-id lookups (accept: a run's owner, the first time it is seen) share one read: each on its
    // own opened and closed one, ~16 µs a run (a file of 16,000 runs: 0.26 s of its 0.97 s import, profiled).
    const read = openRead(db);
    try {
      for (;;) {
        let windowEnd = lastNl;
        if (windowEnd - windowStart > DECODE_BYTES) {
          const nl = data.lastIndexOf(10, windowStart + DECODE_BYTES);
          // A line longer than the window is decoded whole, through its own newline.
          windowEnd = nl >= windowStart ? nl : data.indexOf(10, windowStart + DECODE_BYTES);
        }
        const text = data.toString(encoding, windowStart, windowEnd);
        let lineStart = 0;
        if (line === 0 && text.charCodeAt(0) === 0xfeff) {
          // A byte-order mark from an editor would make the first record (the run-start) invalid JSON.
          lineStart = 1;
          pendingProblems.push({ file, line: 1, level: 'warning', message: BOM_IGNORED_MESSAGE });
        }
        for (;;) {
          const nl = text.indexOf('\n', lineStart);
          const end = nl === -1 ? text.length : nl;
          line += 1;
          linesRead += 1;
          if (badUtf8) reportReplacements(text, lineStart, end, line);
          const stop = handleLine(text.charCodeAt(end - 1) === 13 ? text.slice(lineStart, end - 1) : text.slice(lineStart, end), line);
          if (stop) {
            // A refused file is re-read from the start if it ever changes, so its offset hardly matters.
            offset += lastNl + 1;
            pendingEnd = { offset, line };
            break outer;
          }
          if (nl === -1) break;
          lineStart = nl + 1;
        }
        if (windowEnd === lastNl) break;
        windowStart = windowEnd + 1;
      }
    } finally {
      read.end();
    }
    offset += lastNl + 1;
    pendingEnd = { offset, line };
    // The file's last block is committed with the end of the file below (one transaction, not two: a folder of
    // one-run files paid a second commit for each), and without a turn given up first: records waiting across a
    // turn would let another import take their run ids (their owners were looked up already) and merge the runs.
    const lastBlockRead = pos >= size;
    if (!lastBlockRead) flush();
    carryBytes = data.length - (lastNl + 1);
    buf.copy(buf, 0, lastNl + 1, data.length);
    carry = buf.subarray(0, carryBytes);
    if (lastBlockRead) break;
    yield pos;
    if (opts.signal?.aborted) {
      cancelled = true;
      pendingProblems.push(cancelledAt());
      break;
    }
  }
  asciiBlock = false;
  if (!refused && !cancelled && opts.final && carry.length > 0 && pos >= size) {
    // A last line without newline: complete if it parses, otherwise a truncated write.
    const text = carry.toString('utf8');
    const parsed = text.trim() === '' ? null : parseTraceLine(text, line + 1);
    if (parsed && parsed.kind === 'record') {
      offset += carry.length;
      line += 1;
      linesRead += 1;
      accept(parsed, line);
      pendingEnd = { offset, line };
    } else if (parsed && parsed.kind !== 'refuse' && !parsed.problem.message.startsWith('invalid JSON')) {
      // Complete JSON that is not a valid record: its own problem, not a write cut short.
      pendingProblems.push({ file, ...parsed.problem, line: line + 1 });
    } else if (parsed) {
      pendingProblems.push({ file, line: line + 1, level: 'warning', message: 'last line is incomplete (no newline, not a complete record); it will be read if the file grows' });
    }
  }
  lastBlock = true;
  flush();
  return finish(db, file, [...touched], newErrors, linesRead);

  function cancelledAt(): ImportError {
    return { file, line: 0, level: 'warning', message: `import cancelled at byte ${offset} of ${size} (${linesRead} line(s) stored); import the file again to finish it` };
  }

  function reportReplacements(text: string, from: number, to: number, lineNo: number): void {
    let count = 0;
    for (let i = text.indexOf('\ufffd', from); i !== -1 && i < to; i = text.indexOf('\ufffd', i + 1)) count += 1;
    if (count) pendingProblems.push({ file, line: lineNo, level: 'warning', message: invalidUtf8Message(count) });
  }

  function handleLine(text: string, lineNo: number): boolean {
    if (text.length === 0 || text.trim() === '') return false;
    return accept(parseTraceLine(text, lineNo), lineNo);
  }

  /** Queues a parsed line's record or problem; true when the file is refused. */
  function accept(parsed: ParsedLine, lineNo: number): boolean {
    if (parsed.kind === 'record') {
      const fixed = asciiBlock ? 0 : makeTextWellFormed(parsed.record);
      if (fixed) pendingProblems.push({ file, line: lineNo, level: 'warning', message: WELL_FORMED_MESSAGE(fixed) });
      const id = ids.resolve(parsed.record.run_id);
      if (id.runId !== parsed.record.run_id) {
        if (id.renamedFrom) pendingProblems.push({ file, line: lineNo, level: 'warning', message: collisionMessage(parsed.record.run_id, id.runId, id.renamedFrom.owner) });
        parsed.record.run_id = id.runId;
      }
      pending.push(parsed.record);
      pendingLines.push(lineNo);
      for (const w of parsed.warnings) pendingProblems.push({ file, ...w });
      return false;
    }
    if (parsed.kind === 'refuse') {
      // Say exactly what was kept: earlier lines of the file were imported.
      const message = lineNo > 1 ? `${parsed.problem.message.replace('the file was not imported', `line ${lineNo} and the rest of the file were not imported (the ${lineNo - 1} line(s) before it were)`)}` : parsed.problem.message;
      pendingProblems.push({ file, ...parsed.problem, message });
      refused = message;
      return true;
    }
    pendingProblems.push({ file, ...parsed.problem });
    return false;
  }
}

function specialKind(st: fs.Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a folder';
  return 'a special file';
}

/** Every problem recorded for a file, in line order. */
export function fileErrors(db: Db, file: string): ImportError[] {
  return importErrorsOf(db, path.resolve(file));
}

/** Stores problems for their files (e.g. an import that failed outside importFile's own handling). */
export function recordErrors(db: Db, errors: ImportError[]): void {
  db.transaction(() => insertImportErrors(db, errors))();
}
