/**
 * A store that stays fast at size (issue 14): a database of RUNS runs of
 * STEPS_PER_RUN steps (1,000,000 steps by default; TB_BENCH_STORE_RUNS makes
 * it smaller), written through the importer's record writer. Measured against
 * baselines from the same run: the runs list (what `tb list` calls) with
 * filters and with a text search, next to the same list on a 1,000-run store;
 * and the import of one more 1,000-step run next to the same import into an
 * empty store. Prints the database size per step.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../src-main/engine/store/open-database';
import { createRecordWriter } from '../src-main/engine/store/write-records';
import { listRuns, type ListRunsQuery } from '../src-main/engine/store/read-runs';
import { importFile } from '../src-main/engine/ingest/import-file';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';

const STEPS_PER_RUN = 100;
const REPEATS = 5;

function fill(db: Db, runs: number): void {
  const writer = createRecordWriter(db);
  const t0 = 1_700_000_000_000;
  for (let from = 0; from < runs; from += 100) {
    db.transaction(() => {
      for (let r = from; r < Math.min(runs, from + 100); r++) {
        const records = syntheticRunRecords({ runId: `run-${r}`, pipeline: `pipeline-${r % 20}`, steps: STEPS_PER_RUN, startTs: t0 + r * 1000, failAt: r % 7 === 0 ? 5 : undefined });
        // Every 7th run failed; a verdict on every other run, as a CI gate would record.
        if (r % 2 === 0) records.push({ type: 'verdict', run_id: `run-${r}`, pass: r % 7 !== 0, ts: t0 + r * 1000 + 500 });
        writer.applyBatch(records, null);
      }
    })();
  }
}

function best(f: () => unknown): number {
  let ms = Infinity;
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t);
  }
  return ms;
}

const QUERIES: { label: string; q: ListRunsQuery }[] = [
  { label: 'every run (tb list without --limit lists up to 10,000)', q: {} },
  { label: 'newest 50', q: { limit: 50 } },
  { label: 'failed, newest 50', q: { filter: 'failed', limit: 50 } },
  { label: 'one pipeline, newest 50', q: { pipeline: 'pipeline-3', limit: 50 } },
  { label: 'search "output of step 42", newest 50', q: { search: 'output of step 42', limit: 50 } },
  { label: 'search for text no step holds', q: { search: 'no step says this', limit: 50 } },
];

export async function benchStore(): Promise<{ lines: string[] }> {
  const runs = Number(process.env.TB_BENCH_STORE_RUNS ?? 10_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-store-'));
  try {
    const big = openDatabase(path.join(dir, 'big.db'));
    const small = openDatabase(path.join(dir, 'small.db'));
    const tFill = performance.now();
    fill(big, runs);
    const fillMs = performance.now() - tFill;
    fill(small, Math.min(1_000, runs));
    big.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = fs.statSync(path.join(dir, 'big.db')).size;
    const steps = runs * STEPS_PER_RUN;
    const lines = [
      `store of ${runs.toLocaleString('en')} runs × ${STEPS_PER_RUN} steps = ${steps.toLocaleString('en')} steps, written in ${(fillMs / 1000).toFixed(1)} s; ${(bytes / 1e6).toFixed(0)} MB = ${Math.round(bytes / steps)} bytes per step`,
    ];
    for (const { label, q } of QUERIES) {
      const bigMs = best(() => listRuns(big, q));
      const smallMs = best(() => listRuns(small, q));
      lines.push(`runs list (tb list), ${label}: ${bigMs.toFixed(1)} ms (goal ≤ 100 ms: ${bigMs <= 100 ? 'met' : 'NOT met'}); ${smallMs.toFixed(1)} ms on a ${Math.min(1_000, runs).toLocaleString('en')}-run store (×${(bigMs / smallMs).toFixed(1)})`);
    }
    // One more 1,000-step run, imported from a file as the watcher would, into the big store and into an empty one (alternating).
    const file = path.join(dir, 'one-more.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'one-more', steps: 1_000 })));
    let intoBig = Infinity;
    let intoEmpty = Infinity;
    for (let i = 0; i < REPEATS; i++) {
      big.prepare("DELETE FROM runs WHERE run_id = 'one-more'").run();
      big.prepare('DELETE FROM import_files').run();
      let t = performance.now();
      importFile(big, file, { final: true });
      intoBig = Math.min(intoBig, performance.now() - t);
      const empty = openDatabase(path.join(dir, `empty-${i}.db`));
      t = performance.now();
      importFile(empty, file, { final: true });
      intoEmpty = Math.min(intoEmpty, performance.now() - t);
      empty.close();
    }
    lines.push(`import of one more 1,000-step run: ${intoBig.toFixed(1)} ms into this store, ${intoEmpty.toFixed(1)} ms into an empty one (×${(intoBig / intoEmpty).toFixed(2)}; goal ≤ ×1)`);
    big.close();
    small.close();
    return { lines };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
