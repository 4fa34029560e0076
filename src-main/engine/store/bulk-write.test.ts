import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Db } from './open-database';
import { BULK_IMPORT_MIN_BYTES, beginStreamedImport, checkpointOwed, deferCheckpoints, runOwedCheckpoint } from './bulk-write';
import { importFile } from '../ingest/import-file';
import { importFileAsync } from '../ingest/import-file-async';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bulk-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const autocheckpoint = (db: Db) => db.pragma('wal_autocheckpoint', { simple: true }) as number;
const walBytes = (file: string) => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);

describe('bulk-write settings', () => {
  it('hold while any import runs; the owed checkpoint runs only after the last has finished, and puts the usual checkpoints back', () => {
    const db = openDatabase(path.join(tempDir(), 'a.db'));
    const cache = db.pragma('cache_size', { simple: true });
    const outer = beginStreamedImport(db);
    const inner = deferCheckpoints(db);
    expect(autocheckpoint(db)).toBeGreaterThan(1000);
    expect(db.pragma('cache_size', { simple: true })).not.toBe(cache);
    outer();
    outer(); // a second call of the same release changes nothing
    expect(autocheckpoint(db)).toBeGreaterThan(1000);
    expect(db.pragma('cache_size', { simple: true })).toBe(cache);
    expect(checkpointOwed(db)).toBe(false);
    expect(runOwedCheckpoint(db)).toBe(false); // an import still runs
    inner();
    expect(checkpointOwed(db)).toBe(true);
    expect(autocheckpoint(db)).toBeGreaterThan(1000);
    expect(runOwedCheckpoint(db)).toBe(true);
    expect(autocheckpoint(db)).toBe(1000);
    expect(runOwedCheckpoint(db)).toBe(false);
    db.close();
  });

  it('a big native file commits its blocks without checkpoints in between, then leaves nothing to copy', () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.jsonl');
    let steps = 4000;
    do {
      fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'big', steps })));
      steps *= 2;
    } while (fs.statSync(file).size < BULK_IMPORT_MIN_BYTES * 1.5);
    const dbFile = path.join(dir, 'a.db');
    const db = openDatabase(dbFile);
    let largestWal = 0;
    let duringImport = 0;
    const r = importFile(db, file, {
      final: true,
      onChunkCommitted: () => {
        largestWal = Math.max(largestWal, walBytes(dbFile));
        duringImport = autocheckpoint(db);
      },
    });
    expect(r.newErrors).toEqual([]);
    expect(duringImport).toBeGreaterThan(1000);
    // With a checkpoint every 1,000 pages the WAL would stay near 4 MB (1,000 × 4 kB).
    expect(largestWal).toBeGreaterThan(1000 * 4096 * 1.5);
    // The import returns without copying its pages into the database file: that is left owed.
    expect(checkpointOwed(db)).toBe(true);
    expect(fs.statSync(dbFile).size).toBeLessThan(largestWal / 10);
    expect(runOwedCheckpoint(db)).toBe(true);
    expect(autocheckpoint(db)).toBe(1000);
    expect(fs.statSync(dbFile).size).toBeGreaterThan(largestWal / 2);
    db.close();
  });

  it('a hook that throws in the middle of a big import still puts the settings back', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'big', steps: 20_000 })));
    expect(fs.statSync(file).size).toBeGreaterThan(BULK_IMPORT_MIN_BYTES);
    const db = openDatabase(path.join(dir, 'a.db'));
    await expect(
      importFileAsync(db, file, {
        onProgress: () => {
          throw new Error('progress hook failed');
        },
      }),
    ).rejects.toThrow('progress hook failed');
    // Its hold was let go: the checkpoint it left is owed, not stuck behind an import that will never end.
    expect(checkpointOwed(db)).toBe(true);
    expect(runOwedCheckpoint(db)).toBe(true);
    expect(autocheckpoint(db)).toBe(1000);
    db.close();
  });

  it('a small file keeps the usual checkpoints', () => {
    const dir = tempDir();
    const file = path.join(dir, 'small.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'small', steps: 50 })));
    const db = openDatabase(path.join(dir, 'a.db'));
    let duringImport = 0;
    importFile(db, file, { final: true, onChunkCommitted: () => (duringImport = autocheckpoint(db)) });
    expect(duringImport).toBe(1000);
    expect(checkpointOwed(db)).toBe(false);
    db.close();
  });

  it('a one-shot command closing beside an open app still copies its import into the database file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'big', steps: 20_000 })));
    const dbFile = path.join(dir, 'a.db');
    const app = openDatabase(dbFile);
    const cli = openDatabase(dbFile);
    importFile(cli, file, { final: true });
    expect(checkpointOwed(cli)).toBe(true);
    const before = fs.statSync(dbFile).size;
    // SQLite checkpoints on close only for the last connection: the app is still open.
    closeDatabase(cli);
    expect(fs.statSync(dbFile).size).toBeGreaterThan(before * 10);
    expect((app.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n).toBe(20_000);
    app.close();
  });
});
