// The cancel story every streamed foreign import (OTLP/JSON, LangChain run trees) tells the same way.
import fs from 'node:fs';
import { expect } from 'vitest';
import type { ImportError } from '../../src-shared/model';
import type { ImportProgress } from '../../src-shared/import-progress';
import type { Db } from '../../src-main/engine/store/open-database';
import type { StreamedImportOptions } from '../../src-main/engine/ingest/stream/run-streamed-import';
import { importFile } from '../../src-main/engine/ingest/import-file';

type StreamedImportAsync = (db: Db, fd: number, file: string, size: number, format: string, newErrors: ImportError[], opts: StreamedImportOptions) => Promise<unknown>;

/**
 * Cancels `importAsync` once its write has passed half the file: the committed blocks stay, a problem says
 * where it stopped, progress was reported through both passes; then importFile reads the file again (it was not
 * marked imported) and stores all `steps` without an error.
 */
export async function expectCancelledImportFinishedLater(db: Db, file: string, format: string, importAsync: StreamedImportAsync, steps: number): Promise<void> {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const controller = new AbortController();
  const seen: ImportProgress[] = [];
  const errors: ImportError[] = [];
  try {
    await importAsync(db, fd, file, size, format, errors, {
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.phase === 'write' && p.bytesDone > size / 2) controller.abort();
      },
    });
  } finally {
    fs.closeSync(fd);
  }
  const count = () => (db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n;
  const partial = count();
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(steps);
  expect(errors.map((e) => e.message).join('\n')).toMatch(/import cancelled at byte \d+ of \d+ \(\d+ step\(s\) stored\); import the file again/);
  expect(seen.some((p) => p.phase === 'index')).toBe(true);
  expect(seen.every((p) => p.bytesTotal === size && p.bytesDone <= size)).toBe(true);
  const again = importFile(db, file, { final: true });
  expect(again.newErrors.filter((e) => e.level === 'error')).toEqual([]);
  expect(count()).toBe(steps);
}
