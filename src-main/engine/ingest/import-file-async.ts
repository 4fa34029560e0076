/**
 * The engine's import of one file, giving the event loop turns while a big
 * OTLP/JSON or LangChain run-tree file streams in (otlp/otlp-stream-import.ts,
 * langchain/run-tree-stream-import.ts) or a big native file
 * is read (import-file.ts, importNativeAsync): the engine answers other calls
 * meanwhile, reports progress, and a cancel stops it between two committed
 * blocks. Opening and the checks that need no reading are
 * importFile's own (openForImport); every other file is read as importFile
 * reads it.
 */
import fs from 'node:fs';
import type { Db } from '../store/open-database';
import { importNativeAsync, importOpened, openForImport, type ImportFileOptions } from './import-file';
import { importStreamedAsync } from './import-foreign';
import type { FileImportResult } from './import-result';
import type { StreamImportOptions } from './otlp/otlp-stream-import';

/** Below this (new bytes of a native file, or an OTLP or LangChain file) a file imports in one go: a few hundred ms at most, not worth the turns. */
const STREAM_TURNS_MIN_BYTES = 4 * 1024 * 1024;

export async function importFileAsync(db: Db, filePath: string, opts: ImportFileOptions & StreamImportOptions = {}): Promise<FileImportResult> {
  const opened = openForImport(db, filePath, opts);
  if ('result' in opened) return opened.result;
  try {
    if ((opened.format === 'otlp' || opened.format === 'langchain') && opened.size >= STREAM_TURNS_MIN_BYTES) return await importStreamedAsync(db, opened.fd, opened.file, opened.size, opened.format, opened.newErrors, opts);
    if (opened.format === 'native' && opened.size - opened.start.offset >= STREAM_TURNS_MIN_BYTES) return await importNativeAsync(db, opened, opts);
    return importOpened(db, opened, opts);
  } finally {
    fs.closeSync(opened.fd);
  }
}
