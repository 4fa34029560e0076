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
import path from 'node:path';
import type { ImportError } from '../../../src-shared/model';
import type { TraceRecord } from '../../../src-shared/trace-format';
import type { Db } from '../store/open-database';
import { createRecordWriter, touchRuns } from '../store/write-records';
import { parseTraceLine, type ParsedLine } from './parse-lines';
import { detectFileFormat, parseForeign, type DetectedFormat } from './foreign-formats';

/**
 * Bytes read, parsed and committed per transaction: big enough to amortise the commit,
 * small enough that a crash or a huge file keeps making visible progress (~5,000 SDK lines).
 */
const READ_BYTES = 1024 * 1024;

export interface FileImportResult {
  file: string;
  /** Runs whose records came from this file (in this call or earlier ones). */
  runs: string[];
  /** Runs changed by this call. */
  changedRuns: string[];
  /** Problems found by this call. */
  newErrors: ImportError[];
  linesRead: number;
}

export interface ImportFileOptions {
  /**
   * The file is not expected to grow (a one-shot `tb import`): a last line
   * without newline is read if it is a complete record, and reported otherwise.
   */
  final?: boolean;
  /** Test hook: called after each committed chunk. */
  onChunkCommitted?: (linesSoFar: number) => void;
}

interface FileState {
  size?: number;
  offset: number;
  line: number;
  format: string;
  refused: string | null;
}

function readState(db: Db, file: string): FileState | undefined {
  return db.prepare('SELECT size, offset, line, format, refused FROM import_files WHERE path = ?').get(file) as FileState | undefined;
}

export function importFile(db: Db, filePath: string, opts: ImportFileOptions = {}): FileImportResult {
  const file = path.resolve(filePath);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const problem: ImportError = { file, line: 0, level: 'error', message: e.code === 'ENOENT' ? 'file not found' : `cannot read file: ${e.message}` };
    return { file, runs: [], changedRuns: [], newErrors: [problem], linesRead: 0 };
  }
  try {
    const size = fs.fstatSync(fd).size;
    let state = readState(db, file);
    const newErrors: ImportError[] = [];
    if (state && size < state.offset) {
      // Replaced or truncated by its writer: read it again from the start (upserts are idempotent).
      newErrors.push({ file, line: 0, level: 'warning', message: `file shrank from ${state.offset} to ${size} bytes; re-read from the start` });
      state = { offset: 0, line: 0, format: state.format, refused: null };
    }
    // A refused file is looked at again only when it changes.
    if (state?.refused && state.size === size) return finish(db, file, [], newErrors, 0);
    if (state?.refused) state = undefined;
    const format: DetectedFormat = state && state.offset > 0 ? { kind: state.format } : detectFileFormat(fd, file);
    if ('message' in format) {
      newErrors.push({ file, line: 1, level: 'error', message: format.message });
      saveState(db, file, { offset: 0, line: 0, format: 'unknown', refused: format.message }, size);
      recordErrors(db, newErrors);
      return finish(db, file, [], newErrors, 0);
    }
    if (format.kind !== 'native') return importForeign(db, fd, file, size, format.kind, newErrors);
    return importNative(db, fd, file, size, state ?? { offset: 0, line: 0, format: 'native', refused: null }, opts, newErrors);
  } finally {
    fs.closeSync(fd);
  }
}

function importNative(db: Db, fd: number, file: string, size: number, start: FileState, opts: ImportFileOptions, newErrors: ImportError[]): FileImportResult {
  const writer = createRecordWriter(db);
  let offset = start.offset;
  let line = start.line;
  let linesRead = 0;
  let refused: string | null = null;
  // Parallel arrays rather than one object per line: this runs for every record of big files.
  let pending: TraceRecord[] = [];
  let pendingLines: number[] = [];
  let pendingProblems: ImportError[] = [];
  let pendingEnd = { offset, line };

  const commit = db.transaction(() => {
    const truncated = writer.applyBatch(pending, file);
    for (let i = 0; i < truncated.length; i++) {
      for (const f of truncated[i]) pendingProblems.push({ file, line: pendingLines[i], level: 'warning', message: `field "${f}" exceeds the size cap and was stored truncated` });
    }
    insertErrors(db, pendingProblems);
    touchRuns(db, writer.touchedRuns());
    saveState(db, file, { offset: pendingEnd.offset, line: pendingEnd.line, format: 'native', refused }, size);
  });
  const flush = () => {
    commit();
    newErrors.push(...pendingProblems);
    pending = [];
    pendingLines = [];
    pendingProblems = [];
    opts.onChunkCommitted?.(linesRead);
  };

  const buf = Buffer.allocUnsafe(READ_BYTES);
  let carry: Buffer = Buffer.alloc(0);
  let pos = offset;
  outer: while (pos < size) {
    const n = fs.readSync(fd, buf, 0, Math.min(READ_BYTES, size - pos), pos);
    if (n <= 0) break;
    pos += n;
    const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
    const lastNl = data.lastIndexOf(10);
    if (lastNl === -1) {
      carry = Buffer.from(data);
      continue;
    }
    // Decode the block's complete lines at once (a per-line decode costs more than JSON.parse),
    // and commit once per block: the stored offset is then the byte after the block's last newline.
    const text = data.toString('utf8', 0, lastNl);
    let lineStart = 0;
    for (;;) {
      const nl = text.indexOf('\n', lineStart);
      const end = nl === -1 ? text.length : nl;
      line += 1;
      linesRead += 1;
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
    offset += lastNl + 1;
    pendingEnd = { offset, line };
    flush();
    carry = Buffer.from(data.subarray(lastNl + 1));
  }
  if (!refused && opts.final && carry.length > 0 && pos >= size) {
    // A last line without newline: complete if it parses, otherwise a truncated write.
    const text = carry.toString('utf8');
    const parsed = text.trim() === '' ? null : parseTraceLine(text, line + 1);
    if (parsed && parsed.kind === 'record') {
      offset += carry.length;
      line += 1;
      linesRead += 1;
      accept(parsed, line);
      pendingEnd = { offset, line };
    } else if (parsed) {
      pendingProblems.push({ file, line: line + 1, level: 'warning', message: 'last line is incomplete (no newline, not a complete record); it will be read if the file grows' });
    }
  }
  flush();
  return finish(db, file, [...writer.touchedRuns()], newErrors, linesRead);

  function handleLine(text: string, lineNo: number): boolean {
    if (text.length === 0 || text.trim() === '') return false;
    return accept(parseTraceLine(text, lineNo), lineNo);
  }

  /** Queues a parsed line's record or problem; true when the file is refused. */
  function accept(parsed: ParsedLine, lineNo: number): boolean {
    if (parsed.kind === 'record') {
      pending.push(parsed.record);
      pendingLines.push(lineNo);
      for (const w of parsed.warnings) pendingProblems.push({ file, ...w });
      return false;
    }
    pendingProblems.push({ file, ...parsed.problem });
    if (parsed.kind === 'refuse') {
      refused = parsed.problem.message;
      return true;
    }
    return false;
  }
}

function importForeign(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[]): FileImportResult {
  const text = fs.readFileSync(fd, 'utf8');
  const parsed = parseForeign(text, format, file);
  const writer = createRecordWriter(db);
  const problems: ImportError[] = parsed.errors.map((e) => ({ file, ...e }));
  db.transaction(() => {
    writer.applyBatch(parsed.records, file);
    // A foreign file does not grow: a run it never ended is incomplete, not running.
    const mark = db.prepare(`UPDATE runs SET status = 'incomplete' WHERE run_id = ? AND status = 'running'`);
    for (const id of writer.touchedRuns()) mark.run(id);
    insertErrors(db, problems);
    saveState(db, file, { offset: size, line: 0, format, refused: null }, size);
  })();
  newErrors.push(...problems);
  return finish(db, file, [...writer.touchedRuns()], newErrors, parsed.records.length);
}

function saveState(db: Db, file: string, s: FileState, size: number): void {
  db.prepare(
    `INSERT INTO import_files (path, offset, line, size, format, refused, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET offset = excluded.offset, line = excluded.line, size = excluded.size,
       format = excluded.format, refused = excluded.refused, updated_at = excluded.updated_at`,
  ).run(file, s.offset, s.line, size, s.format, s.refused, Date.now());
}

function insertErrors(db: Db, errors: ImportError[]): void {
  if (errors.length === 0) return;
  const stmt = db.prepare('INSERT OR IGNORE INTO import_errors (path, line, level, message, created_at) VALUES (?, ?, ?, ?, ?)');
  const now = Date.now();
  for (const e of errors) stmt.run(e.file, e.line, e.level, e.message, now);
}

function recordErrors(db: Db, errors: ImportError[]): void {
  db.transaction(() => insertErrors(db, errors))();
}

function finish(db: Db, file: string, changedRuns: string[], newErrors: ImportError[], linesRead: number): FileImportResult {
  const runs = (db.prepare('SELECT run_id FROM runs WHERE source_file = ? ORDER BY started_at').all(file) as { run_id: string }[]).map((r) => r.run_id);
  return { file, runs, changedRuns, newErrors, linesRead };
}

/** Every problem recorded for a file, in line order. */
export function fileErrors(db: Db, file: string): ImportError[] {
  return (
    db.prepare('SELECT path AS file, line, level, message FROM import_errors WHERE path = ? ORDER BY line, id').all(path.resolve(file)) as ImportError[]
  );
}
