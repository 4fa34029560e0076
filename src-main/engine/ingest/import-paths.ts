/** `tb import` / File → Open: files, or folders of trace files, imported once each. */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportError, ImportReport } from '../../../src-shared/model';
import type { Db } from '../store/open-database';
import { fileErrors, importFile, type ImportFileOptions } from './import-file';
import { importFileAsync } from './import-file-async';
import type { FileImportResult } from './import-result';
import type { StreamImportOptions } from './otlp/otlp-stream-import';
import { TRACE_FILE } from './watch-inbox';

/**
 * The trace files under a path. A dangling link, a FIFO, a device or a socket
 * is skipped with a warning and never opened (a FIFO would block forever); a
 * folder that cannot be read is reported and the rest go on.
 */
function expand(p: string, skipped: ImportError[], depth = 3): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return [p]; // importFile reports the missing file (or dangling link) with its name
  }
  if (!st.isDirectory()) return [p];
  if (depth === 0) return [];
  let names: string[];
  try {
    names = fs.readdirSync(p).sort();
  } catch (err) {
    skipped.push({ file: p, line: 0, level: 'error', message: `cannot read folder: ${(err as Error).message}` });
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const child = path.join(p, name);
    let cst: fs.Stats;
    try {
      cst = fs.statSync(child);
    } catch {
      if (TRACE_FILE.test(name)) skipped.push({ file: child, line: 0, level: 'warning', message: 'skipped: a link to nothing (dangling symbolic link)' });
      continue;
    }
    if (cst.isDirectory()) for (const f of expand(child, skipped, depth - 1)) out.push(f);
    else if (!TRACE_FILE.test(name)) continue;
    else if (!cst.isFile()) skipped.push({ file: child, line: 0, level: 'warning', message: `skipped: ${cst.isFIFO() ? 'a named pipe (FIFO)' : cst.isSocket() ? 'a socket' : 'a device or special file'}, not a regular file` });
    else out.push(child);
  }
  return out;
}

export interface ImportPathsOutcome extends ImportReport {
  changedRuns: string[];
  /** Problems found by this call only (a file read again reports none). */
  newErrors: ImportError[];
}

/**
 * Imports each file once. The report lists, per file, the runs it holds and
 * every problem recorded for it (so importing twice reports the same thing).
 * `final`: the files will not grow (`tb import` of finished files: a run with
 * no run-end is incomplete). The CLI's look at the inbox passes false, as the
 * watcher does: a file an SDK is still writing stays "running". `skipUnchanged`: that look also leaves alone a file
 * read to its end and not changed since (import-file.ts); the files a user names are read again.
 */
export function importPaths(db: Db, paths: string[], opts: { final?: boolean } & Pick<ImportFileOptions, 'skipUnchanged' | 'unchangedMarginMs'> = {}): ImportPathsOutcome {
  const outcome = newOutcome();
  for (const file of expandAll(paths, outcome)) {
    try {
      addFile(db, outcome, importFile(db, file, { ...opts, final: opts.final ?? true }));
    } catch (err) {
      addFailure(outcome, file, err);
    }
  }
  return finishOutcome(outcome);
}

/**
 * The same, for the engine: a big OTLP/JSON file streams with turns to the event loop
 * (import-file-async.ts), so other calls are answered meanwhile; `signal` stops the import
 * between two committed blocks and `onProgress` reports bytes read.
 */
export async function importPathsAsync(db: Db, paths: string[], opts: { final?: boolean } & StreamImportOptions = {}): Promise<ImportPathsOutcome> {
  const outcome = newOutcome();
  for (const file of expandAll(paths, outcome)) {
    if (opts.signal?.aborted) break;
    try {
      addFile(db, outcome, await importFileAsync(db, file, { final: opts.final ?? true, signal: opts.signal, onProgress: opts.onProgress }));
    } catch (err) {
      addFailure(outcome, file, err);
    }
  }
  return finishOutcome(outcome);
}

interface Outcome {
  imported: ImportReport['imported'];
  errors: ImportError[];
  changed: Set<string>;
  newErrors: ImportError[];
}

function newOutcome(): Outcome {
  return { imported: [], errors: [], changed: new Set(), newErrors: [] };
}

function expandAll(paths: string[], outcome: Outcome): string[] {
  return paths.flatMap((p) => expand(path.resolve(p), outcome.errors));
}

/** One bad file never stops a folder; a fault of the database itself does (every later file would fail too). */
function addFailure(outcome: Outcome, file: string, err: unknown): void {
  if (/^SQLITE_(CORRUPT|NOTADB|FULL|READONLY|IOERR)/.test(String((err as { code?: unknown }).code ?? ''))) throw err;
  const problem: ImportError = { file, line: 0, level: 'error', message: `import failed: ${(err as Error).message}` };
  outcome.errors.push(problem);
  outcome.newErrors.push(problem);
}

function addFile(db: Db, outcome: Outcome, r: FileImportResult): void {
  r.changedRuns.forEach((id) => outcome.changed.add(id));
  outcome.newErrors.push(...r.newErrors);
  const recorded = fileErrors(db, r.file);
  // Problems not recorded in the store (e.g. an unreadable file) are still reported.
  const unrecorded = r.newErrors.filter((e) => !recorded.some((x) => x.line === e.line && x.message === e.message));
  outcome.errors.push(...recorded, ...unrecorded);
  if (r.runs.length > 0 || !outcome.errors.some((e) => e.file === r.file && e.level === 'error')) outcome.imported.push({ file: r.file, runs: r.runs });
}

function finishOutcome(o: Outcome): ImportPathsOutcome {
  return { imported: o.imported, errors: o.errors, changedRuns: [...o.changed], newErrors: o.newErrors };
}
