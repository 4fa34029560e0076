/**
 * What an import of one file returns, and the helpers the native and foreign
 * imports share: the truncation warning text, and which errors are faults of
 * the database itself rather than of a record.
 */
import type { ImportError } from '../../../src-shared/model';
import type { Db } from '../store/open-database';
import { runsFromFile } from '../store/import-files';
import { MAX_DEPTH } from '../store/field-limits';
import { nameInvisibleChars } from '../text/invisible-chars';

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

/** The warning every importer gives for a byte-order mark it skipped. */
export const BOM_IGNORED_MESSAGE = 'a UTF-8 byte-order mark at the start of the file was ignored';

/** The warning for bytes that are not UTF-8, decoded to U+FFFD: the same words from every importer. */
export const invalidUtf8Message = (replaced: number): string => `invalid UTF-8: ${replaced} character(s) replaced by U+FFFD`;

/** The warning for one entry of RecordWriter's truncation list ("input", or "input:depth:N"). */
export function truncationMessage(entry: string): string {
  const [field, kind, count] = entry.split(':');
  if (kind === 'depth') return `field "${field}": ${count} value(s) nested deeper than ${MAX_DEPTH} levels were replaced by a marker`;
  return `field "${field}" exceeds the size cap and was stored truncated`;
}

/** Errors of the database itself (corrupt, full, read-only): retrying record by record cannot help. */
export function isDatabaseFault(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB|FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED)/.test(code);
}

/** The result of an import; its problems read as insertImportErrors stored them (no raw control or bidi character). */
export function finish(db: Db, file: string, changedRuns: string[], newErrors: ImportError[], linesRead: number): FileImportResult {
  const shown = newErrors.map((e) => ({ ...e, message: nameInvisibleChars(e.message) }));
  return { file, runs: runsFromFile(db, file), changedRuns, newErrors: shown, linesRead };
}
