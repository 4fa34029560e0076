/**
 * Import of a foreign-format file (OTLP/JSON, LangChain run trees, chat
 * transcripts), read again whole when it changes; upserts keep that
 * idempotent. OTLP/JSON is streamed in two passes and committed in blocks
 * (otlp/otlp-stream-import.ts), LangChain run trees too, in three
 * (langchain/run-tree-stream-import.ts); chat transcripts are parsed whole and
 * stored in one transaction.
 */
import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { ImportError } from '../../../src-shared/model';
import type { TraceRecord } from '../../../src-shared/trace-format';
import type { Db } from '../store/open-database';
import { createRecordWriter } from '../store/write-records';
import { dropStaleSyntheticSteps, forgetFileProblems, insertImportErrors, noteSyntheticSteps, saveFileState, settleForeignRuns } from '../store/import-files';
import { parseForeign } from './foreign-formats';
import { collisionMessage, createRunIdResolver } from '../store/run-id-collisions';
import { tallyWellFormed, wellFormedMessages, type WellFormedTally } from './native/well-formed-text';
import { BOM_IGNORED_MESSAGE, finish, invalidUtf8Message, isDatabaseFault, truncationMessage, type FileImportResult } from './import-result';
import { importOtlpStreaming, importOtlpStreamingAsync, type StreamImportOptions } from './otlp/otlp-stream-import';
import { UnusualOtlpShape } from './otlp/otlp-span-stream';
import { importLangChainStreaming, importLangChainStreamingAsync, type RunTreeStreamOptions } from './langchain/run-tree-stream-import';
import { UnusualRunTreeShape } from './langchain/run-tree-walk';
import { wholeCharactersEnd } from './stream/utf8-up-to-cut';

export function importForeign(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: StreamImportOptions & RunTreeStreamOptions = {}): FileImportResult {
  try {
    if (format === 'otlp') return importOtlpStreaming(db, fd, file, size, format, newErrors, opts);
    if (format === 'langchain') return importLangChainStreaming(db, fd, file, size, format, newErrors, opts);
  } catch (err) {
    if (!isUnusualShape(err)) throw err;
  }
  return importWhole(db, fd, file, size, format, newErrors);
}

/** The same for an OTLP/JSON or LangChain run-tree file, with a turn to the event loop between blocks (the engine's import of big files). */
export async function importStreamedAsync(db: Db, fd: number, file: string, size: number, format: 'otlp' | 'langchain', newErrors: ImportError[], opts: StreamImportOptions & RunTreeStreamOptions = {}): Promise<FileImportResult> {
  try {
    if (format === 'otlp') return await importOtlpStreamingAsync(db, fd, file, size, format, newErrors, opts);
    return await importLangChainStreamingAsync(db, fd, file, size, format, newErrors, opts);
  } catch (err) {
    if (!isUnusualShape(err)) throw err;
  }
  return importWhole(db, fd, file, size, format, newErrors);
}

/** A document shape the streaming reader does not follow (or a broken one), found before anything is stored: the file is read whole. */
function isUnusualShape(err: unknown): boolean {
  return err instanceof UnusualOtlpShape || err instanceof UnusualRunTreeShape;
}

/** The whole file parsed at once and stored in one transaction: the other foreign formats, and the reference for the streaming import's tests. */
export function importWhole(db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[]): FileImportResult {
  // When this read began, stored with the file's state (skipUnchanged in import-file.ts).
  const readAt = Date.now();
  const bytes = fs.readFileSync(fd);
  const text = bytes.toString('utf8');
  const parsed = parseForeign(text, format, file);
  if (!isUtf8(bytes)) {
    // The first bytes of a character at the very end are a cut (said by the parse), not text that is not UTF-8.
    const whole = wholeCharactersEnd(bytes, bytes.length);
    const checked = whole < bytes.length ? bytes.subarray(0, whole) : bytes;
    if (!isUtf8(checked)) {
      const decoded = checked === bytes ? text : checked.toString('utf8');
      let count = 0;
      for (let i = decoded.indexOf('\ufffd'); i !== -1; i = decoded.indexOf('\ufffd', i + 1)) count += 1;
      parsed.errors.push({ line: 1, level: 'warning', message: invalidUtf8Message(count) });
    }
  }
  if (text.charCodeAt(0) === 0xfeff) parsed.errors.push({ line: 1, level: 'warning', message: BOM_IGNORED_MESSAGE });
  const writer = createRecordWriter(db);
  const problems: ImportError[] = parsed.errors.map((e) => ({ file, ...e }));
  const ids = createRunIdResolver(db, file);
  // Made well-formed before the ids are looked up (the stored id is the well-formed one).
  const wellFormed: WellFormedTally = new Map();
  tallyWellFormed(parsed.records, wellFormed);
  for (const r of parsed.records) {
    const id = ids.resolve(r.run_id);
    if (id.renamedFrom) problems.push({ file, line: 1, level: 'warning', message: collisionMessage(r.run_id, id.runId, id.renamedFrom.owner) });
    r.run_id = id.runId;
  }
  // Said under the id each run is stored as (the resolver answers a known id again without a second warning).
  for (const message of wellFormedMessages(wellFormed, (runId) => ids.resolve(runId).runId)) problems.push({ file, line: 1, level: 'warning', message });
  const where = (r: TraceRecord) => ('step_id' in r && typeof r.step_id === 'string' ? `run ${r.run_id}, step ${r.step_id}` : `run ${r.run_id}`);
  // `first`: where `records` start in parsed.records, whose lines say where each record's step is in the file.
  const apply = (w: ReturnType<typeof createRecordWriter>, records: TraceRecord[], first: number) =>
    w.applyBatch(records, file).forEach((fields, i) => {
      for (const f of fields) problems.push({ file, line: parsed.lines[first + i] ?? 1, level: 'warning', message: `${where(records[i])}: ${truncationMessage(f)}` });
    });
  let storeWriter = writer;
  db.transaction(() => {
    const before = problems.length;
    try {
      db.transaction(() => apply(writer, parsed.records, 0))();
    } catch (err) {
      // As for native blocks: store what can be stored, record by record, and name what could not.
      if (isDatabaseFault(err)) throw err;
      problems.length = before;
      storeWriter = createRecordWriter(db);
      parsed.records.forEach((r, k) => {
        try {
          db.transaction(() => apply(storeWriter, [r], k))();
        } catch (e) {
          if (isDatabaseFault(e)) throw e;
          problems.push({ file, line: parsed.lines[k] ?? 1, level: 'error', message: `${where(r)} (${r.type}): could not be stored (${(e as Error).message}); skipped` });
        }
      });
    }
    // A whole read replaces what the file's earlier read left: its problems, and synthetic roots it made up.
    const synthetic = new Map<string, Set<string>>();
    noteSyntheticSteps(parsed.records, synthetic);
    dropStaleSyntheticSteps(db, synthetic, storeWriter.touchedRuns());
    settleForeignRuns(db, storeWriter.touchedRuns());
    forgetFileProblems(db, file);
    insertImportErrors(db, problems);
    saveFileState(db, file, { offset: size, line: 0, format, refused: null, updated_at: readAt }, size);
  })();
  newErrors.push(...problems);
  return finish(db, file, [...storeWriter.touchedRuns()], newErrors, parsed.records.length);
}
