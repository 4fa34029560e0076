/**
 * The inbox watcher when file events go missing: a file copied in can be seen
 * while still empty, with its data landing before the file itself is
 * watched, so no change event ever comes. Here every change event is dropped;
 * the watcher still imports what the file holds.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../store/open-database';
import { watchInbox } from './watch-inbox';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { exportOtlp } from './foreign/index';
import { foldRecords } from './native/fold-records';
import type { ImportError } from '../../../src-shared/model';

vi.mock('chokidar', async (importOriginal) => {
  const real = await importOriginal<typeof import('chokidar')>();
  return {
    ...real,
    // The real watcher, deaf to 'change': the events a racing copy can cost.
    watch: (...args: Parameters<typeof real.watch>) => {
      const w = real.watch(...args);
      const on = w.on.bind(w);
      w.on = ((event: string, fn: (...a: unknown[]) => void) => (event === 'change' ? w : on(event as 'add', fn as () => void))) as typeof w.on;
      return w;
    },
  };
});

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-watch-'));
  fs.mkdirSync(path.join(dir, 'inbox'));
  db = openDatabase(path.join(dir, 'traces.db'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('watchInbox without change events', () => {
  it('data that lands just after a file was imported is imported too', async () => {
    const changed: string[] = [];
    const w = watchInbox(db, path.join(dir, 'inbox'), { onRunsChanged: (ids) => changed.push(...ids), onErrors: () => {} });
    await w.ready;
    const file = path.join(dir, 'inbox', 'copied.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'first-part', steps: 1 })));
    await expect.poll(() => changed.includes('first-part'), { timeout: 5000 }).toBe(true);
    // The rest of the copy lands after the import, with no event.
    fs.appendFileSync(file, toJsonl(syntheticRunRecords({ runId: 'landed-late', steps: 2 })));
    await expect.poll(() => changed.includes('landed-late'), { timeout: 5000 }).toBe(true);
    await w.close();
  });

  it('a file that grows long after its import is found by the periodic look at every file', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const changed: string[] = [];
      const file = path.join(dir, 'inbox', 'tailed.jsonl');
      fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'first', steps: 1 })));
      const w = watchInbox(db, path.join(dir, 'inbox'), { onRunsChanged: (ids) => changed.push(...ids), onErrors: () => {} });
      await w.ready;
      await w.idle();
      expect(changed).toContain('first');
      await vi.advanceTimersByTimeAsync(3000); // the rechecks after the import find nothing new
      fs.appendFileSync(file, toJsonl(syntheticRunRecords({ runId: 'second', steps: 1 })));
      expect(changed).not.toContain('second');
      await vi.advanceTimersByTimeAsync(15_000);
      await w.idle();
      expect(changed).toContain('second');
      await w.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('watchInbox and cancelling', () => {
  it('a big file\'s import reports progress and stops when cancelled; the file waits until it changes', async () => {
    const changed: string[] = [];
    const errors: ImportError[] = [];
    const phases = new Set<string>();
    const controllers: AbortController[] = [];
    let cancelled = false;
    const w = watchInbox(db, path.join(dir, 'inbox'), {
      onRunsChanged: (ids) => changed.push(...ids),
      onErrors: (e) => errors.push(...e),
      onProgress: (p) => {
        phases.add(p.phase);
        // The user cancels once the spans are being stored (the first import only).
        if (p.phase === 'write' && p.bytesDone > 0 && !cancelled) {
          cancelled = true;
          controllers.forEach((c) => c.abort());
        }
      },
      track: (c) => {
        controllers.push(c);
        return () => controllers.splice(controllers.indexOf(c), 1);
      },
    });
    await w.ready;
    const file = path.join(dir, 'inbox', 'big.json');
    fs.writeFileSync(file, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'big', steps: 12_000 }))[0])));
    await expect.poll(() => errors.some((e) => e.message.includes('import cancelled')), { timeout: 20_000 }).toBe(true);
    await w.idle();
    expect(phases).toEqual(new Set(['index', 'write']));
    const stored = () => (db.prepare("SELECT COUNT(*) AS n FROM steps WHERE run_id = 'big'").get() as { n: number }).n;
    const partial = stored();
    expect(partial).toBeLessThan(12_000);
    // The look-agains after an import do not start it over.
    await new Promise((r) => setTimeout(r, 2500));
    await w.idle();
    expect(stored()).toBe(partial);
    expect(controllers).toEqual([]);
    // Changed, it is imported whole.
    fs.appendFileSync(file, '\n');
    await expect.poll(stored, { timeout: 20_000 }).toBe(12_000);
    await w.close();
  }, 40_000);
});
