/**
 * The loop of a streamed foreign import (OTLP/JSON, LangChain run trees): a
 * turn of work at a time, progress after each, a cancel between two, with
 * the connection's bulk settings held meanwhile (store/bulk-write.ts: page
 * cache lowered, checkpoints deferred to the end) and put back however the
 * import ends.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ImportProgress } from '../../../../src-shared/import-progress';
import type { ImportError } from '../../../../src-shared/model';
import type { Db } from '../../store/open-database';
import { beginStreamedImport } from '../../store/bulk-write';
import type { FileImportResult } from '../import-result';

export interface StreamedImportOptions {
  /** Stops the import between two blocks; the committed blocks stay, and the file is not marked imported. */
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

/** One import of one file, worked a turn at a time. */
export interface StreamedImportJob {
  /** One turn of work; false when the import is complete. */
  step(): boolean;
  progress(): ImportProgress;
  /** Stops between blocks: commits what was mapped, and says what is missing. */
  cancel(): void;
  result(newErrors: ImportError[]): FileImportResult;
}

/** After a turn: true when `signal` asks to stop, and the job has been cancelled. */
function cancelledAfterTurn(job: StreamedImportJob, opts: StreamedImportOptions): boolean {
  if (!opts.signal?.aborted) return false;
  job.cancel();
  return true;
}

/** The import, start to end, on this thread. */
export function runStreamedImport(db: Db, job: StreamedImportJob, newErrors: ImportError[], opts: StreamedImportOptions): FileImportResult {
  const restoreSettings = beginStreamedImport(db);
  try {
    while (job.step()) {
      opts.onProgress?.(job.progress());
      if (cancelledAfterTurn(job, opts)) break;
    }
  } finally {
    restoreSettings();
  }
  return job.result(newErrors);
}

/** The same import, giving the event loop a turn between blocks: other calls are answered, progress reported, and `signal` can stop it. */
export async function runStreamedImportAsync(db: Db, job: StreamedImportJob, newErrors: ImportError[], opts: StreamedImportOptions): Promise<FileImportResult> {
  const restoreSettings = beginStreamedImport(db);
  try {
    while (job.step()) {
      opts.onProgress?.(job.progress());
      await nextTurn();
      if (cancelledAfterTurn(job, opts)) break;
    }
  } finally {
    restoreSettings();
  }
  return job.result(newErrors);
}
