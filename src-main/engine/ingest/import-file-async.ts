/**
 * The engine's import of one file, giving the event loop turns while a big
 * OTLP/JSON file streams in (otlp/otlp-stream-import.ts): the engine answers
 * other calls meanwhile, reports progress, and a cancel stops it between two
 * committed blocks. Every other file, and an OTLP file the streaming reader
 * does not follow, goes through the synchronous importFile unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/open-database';
import { readFileState } from '../store/import-files';
import { detectFileFormat } from './foreign-formats';
import { importFile, type ImportFileOptions } from './import-file';
import type { FileImportResult } from './import-result';
import { importOtlpStreamingAsync, type StreamImportOptions } from './otlp/otlp-stream-import';
import { UnusualOtlpShape } from './otlp/otlp-span-stream';

/** Below this an OTLP file imports in one go: a few hundred ms at most, not worth the turns. */
const STREAM_TURNS_MIN_BYTES = 4 * 1024 * 1024;

export async function importFileAsync(db: Db, filePath: string, opts: ImportFileOptions & StreamImportOptions = {}): Promise<FileImportResult> {
  const file = path.resolve(filePath);
  const big = bigOtlpFile(db, file);
  if (!big) return importFile(db, file, opts);
  try {
    return await importOtlpStreamingAsync(db, big.fd, file, big.size, 'otlp', [], opts);
  } catch (err) {
    // A document shape the streaming reader does not follow is found before anything is stored: read it whole.
    if (!(err instanceof UnusualOtlpShape)) throw err;
    return importFile(db, file, opts);
  } finally {
    fs.closeSync(big.fd);
  }
}

/** An open regular OTLP/JSON file big enough to stream with turns, or null (importFile then does all its own checks). */
function bigOtlpFile(db: Db, file: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (process.platform === 'win32' ? 0 : fs.constants.O_NONBLOCK));
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    const state = readFileState(db, file);
    const streamable =
      st.isFile() &&
      st.size >= STREAM_TURNS_MIN_BYTES &&
      !(state?.refused && state.size === st.size) &&
      !(state && st.size < state.offset) &&
      (state && state.offset > 0 ? state.format : detectFileFormat(fd, file).kind) === 'otlp';
    if (streamable) return { fd, size: st.size };
  } catch {
    // importFile reports what went wrong.
  }
  fs.closeSync(fd);
  return null;
}
