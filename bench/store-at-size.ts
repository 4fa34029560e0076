/**
 * A store that stays fast at size (issue 14): a database of RUNS runs of
 * STEPS_PER_RUN steps (1,000,000 steps by default; TB_BENCH_STORE_RUNS makes
 * it smaller), written through the importer's record writer. Each figure is
 * printed with its goal and a baseline from the same run:
 * - the runs list (what `tb list` calls), unfiltered, filtered and searched,
 *   next to the same list on a 1,000-run store, and each search next to the
 *   same search answered by scanning every step with LIKE (the way it was
 *   answered before the text index; queries of 1–2 characters go through the
 *   trigrams that start with them since migration 0011);
 * - bytes per step, without and with the step text index, and the time to
 *   build that index per step (the importer does not build it: searches do);
 * - the first list after the store is written (each import stored its runs'
 *   step counts as it ended);
 * - the import of one more 1,000-step run next to the same import into an
 *   empty store, then the first list and the first search after it (the
 *   search indexes that run: the catch-up cost) next to the same again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../src-main/engine/store/open-database';
import { createRecordWriter } from '../src-main/engine/store/write-records';
import { storeStepCounts } from '../src-main/engine/store/step-counts';
import { listRuns, LIST_RUNS_SQL, type ListRunsQuery } from '../src-main/engine/store/read-runs';
import { catchUpStepText } from '../src-main/engine/store/step-text-index';
import { importFile } from '../src-main/engine/ingest/import-file';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';

const STEPS_PER_RUN = 100;
const REPEATS = 5;
const GOAL_MS = 100;

function fill(db: Db, runs: number): void {
  const writer = createRecordWriter(db);
  const t0 = 1_700_000_000_000;
  for (let from = 0; from < runs; from += 100) {
    db.transaction(() => {
      const written: string[] = [];
      for (let r = from; r < Math.min(runs, from + 100); r++) {
        written.push(`run-${r}`);
        const records = syntheticRunRecords({ runId: `run-${r}`, pipeline: `pipeline-${r % 20}`, steps: STEPS_PER_RUN, startTs: t0 + r * 1000, failAt: r % 7 === 0 ? 5 : undefined });
        // Every 7th run failed; a verdict on every other run, as a CI gate would record.
        if (r % 2 === 0) records.push({ type: 'verdict', run_id: `run-${r}`, pass: r % 7 !== 0, ts: t0 + r * 1000 + 500 });
        writer.applyBatch(records, null);
      }
      // As each import does when it ends (store/step-counts.ts): the runs it wrote get their stored step counts.
      storeStepCounts(db, written);
    })();
  }
}

/** One transaction inserting `rows` (whole steps rows) under their run, which it makes and then deletes again; its time in ms. */
function rawInsert(db: Db, rows: unknown[][]): number {
  const runId = rows[0][0];
  db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES (?, 'p', 'ok', 0, 0, 0)").run(runId);
  const insert = db.prepare(`INSERT INTO steps VALUES (${rows[0].map(() => '?').join(',')})`);
  const ms = timed(() => db.transaction(() => {
    for (const r of rows) insert.run(r);
  })());
  db.prepare('DELETE FROM runs WHERE run_id = ?').run(runId);
  return ms;
}

function timed(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

function best(f: () => unknown): number {
  let ms = Infinity;
  for (let i = 0; i < REPEATS; i++) ms = Math.min(ms, timed(f));
  return ms;
}

/** The same list with the search answered by LIKE over every step's text: what every search did before migration 0010. */
function listByScan(db: Db, q: ListRunsQuery): unknown[] {
  const text = q.search!.trim();
  return db.prepare(LIST_RUNS_SQL).all({
    pipeline: q.pipeline ?? null,
    search: `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    filter: q.filter ?? 'all',
    include_trials: 0,
    running_since: 0,
    limit: q.limit ?? 10_000,
  });
}

const goal = (ms: number) => `goal ≤ ${GOAL_MS} ms: ${ms <= GOAL_MS ? 'met' : 'NOT met'}`;

const LISTS: { label: string; q: ListRunsQuery }[] = [
  { label: 'every run (tb list without --limit lists up to 10,000)', q: {} },
  { label: 'newest 50', q: { limit: 50 } },
  { label: 'failed, newest 50', q: { filter: 'failed', limit: 50 } },
  { label: 'one pipeline, newest 50', q: { pipeline: 'pipeline-3', limit: 50 } },
];

const SEARCHES: { label: string; q: ListRunsQuery }[] = [
  { label: 'search "output of step 42" (every run holds it), newest 50', q: { search: 'output of step 42', limit: 50 } },
  { label: 'search "OUTPUT OF STEP 42", every run (all hit)', q: { search: 'OUTPUT OF STEP 42' } },
  { label: 'search "step 5 failed" (1 run in 7 holds it), newest 50', q: { search: 'step 5 failed', limit: 50 } },
  { label: 'search for text no step holds', q: { search: 'no step says this', limit: 50 } },
  { label: 'search for words every run holds, in an order none does', q: { search: 'step 42 of output', limit: 50 } },
  { label: 'search of 2 characters no step holds (the trigrams starting with them)', q: { search: 'zq', limit: 50 } },
  { label: 'search of 2 characters every run holds, newest 50', q: { search: '42', limit: 50 } },
  { label: 'search of 1 character no step holds', q: { search: 'Q', limit: 50 } },
  { label: 'search of 1 character every run holds, newest 50', q: { search: '7', limit: 50 } },
];

export async function benchStore(): Promise<{ lines: string[] }> {
  const runs = Number(process.env.TB_BENCH_STORE_RUNS ?? 10_000);
  const smallRuns = Math.min(1_000, runs);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-store-'));
  const size = () => {
    big.pragma('wal_checkpoint(TRUNCATE)');
    return fs.statSync(path.join(dir, 'big.db')).size;
  };
  const big = openDatabase(path.join(dir, 'big.db'));
  try {
    const small = openDatabase(path.join(dir, 'small.db'));
    const fillMs = timed(() => fill(big, runs));
    fill(small, smallRuns);
    const steps = runs * STEPS_PER_RUN;
    const bytes = size();
    // What a search would do in pieces: build the whole index at once, as idle time after a big import would.
    let indexed = { steps: 0 };
    const indexMs = timed(() => (indexed = catchUpStepText(big)));
    catchUpStepText(small);
    const indexBytes = size() - bytes;
    const lines = [
      `store of ${runs.toLocaleString('en')} runs × ${STEPS_PER_RUN} steps = ${steps.toLocaleString('en')} steps, written in ${(fillMs / 1000).toFixed(1)} s (${((fillMs / steps) * 1000).toFixed(1)} µs per step)`,
      `bytes per step: ${Math.round(bytes / steps)} without the text index, ${Math.round((bytes + indexBytes) / steps)} with it (index ${Math.round(indexBytes / steps)} bytes per step, ×${((bytes + indexBytes) / bytes).toFixed(2)} the store; ${(((bytes + indexBytes) / 1e6)).toFixed(0)} MB)`,
      `text index built for ${indexed.steps.toLocaleString('en')} steps in ${(indexMs / 1000).toFixed(1)} s: ${((indexMs / indexed.steps) * 1000).toFixed(1)} µs per step, ×${(indexMs / fillMs).toFixed(2)} of writing the store (not on the import path: searches and idle time build it)`,
    ];
    // The imports stored each run's step count as they ended: the first list reads them (it counted every run's steps before).
    const firstListMs = timed(() => listRuns(big, {}));
    lines.push(`runs list, first after writing the store (step counts stored by the imports): ${firstListMs.toFixed(1)} ms (${goal(firstListMs)})`);
    for (const { label, q } of LISTS) {
      const bigMs = best(() => listRuns(big, q));
      const smallMs = best(() => listRuns(small, q));
      lines.push(`runs list (tb list), ${label}: ${bigMs.toFixed(1)} ms (${goal(bigMs)}); ${smallMs.toFixed(1)} ms on a ${smallRuns.toLocaleString('en')}-run store (×${(bigMs / smallMs).toFixed(1)})`);
    }
    for (const { label, q } of SEARCHES) {
      const bigMs = best(() => listRuns(big, q));
      const smallMs = best(() => listRuns(small, q));
      const scanMs = best(() => listByScan(big, q));
      const hits = listRuns(big, q).length;
      if (hits !== listByScan(big, q).length) throw new Error(`search ${q.search}: the index found ${hits} runs, the scan ${listByScan(big, q).length}`);
      lines.push(
        `runs list, ${label}: ${bigMs.toFixed(1)} ms, ${hits} runs (${goal(bigMs)}); by scanning every step ${scanMs.toFixed(1)} ms (×${(bigMs / scanMs).toFixed(2)}); ${smallMs.toFixed(1)} ms on a ${smallRuns.toLocaleString('en')}-run store (×${(bigMs / smallMs).toFixed(1)})`,
      );
    }
    // Where the all-hit search's time goes (issue 14 goal 5): the index's phrase match alone, the list of every run without a
    // search, and the whole search over more repeats, its median beside its best (the machine is shared: one best can be lucky).
    const allHit = SEARCHES[1].q;
    const phrase = `"${allHit.search!}"`;
    const matchMs = best(() => big.prepare('SELECT rowid FROM step_text WHERE step_text MATCH ?').pluck().all(phrase));
    const listMs = best(() => listRuns(big, {}));
    const allHitMs = Array.from({ length: 3 * REPEATS }, () => timed(() => listRuns(big, allHit))).sort((a, b) => a - b);
    lines.push(
      `runs list, search "${allHit.search!}" (all hit), ${allHitMs.length} times: best ${allHitMs[0].toFixed(1)} ms, median ${allHitMs[allHitMs.length >> 1].toFixed(1)} ms; of which the index's phrase match alone ${matchMs.toFixed(1)} ms, the list of every run without a search ${listMs.toFixed(1)} ms`,
    );
    // One more 1,000-step run, imported from a file as the watcher would, into the big store and into an empty one (alternating).
    const file = path.join(dir, 'one-more.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'one-more', steps: 1_000, startTs: 1_600_000_000_000 })));
    // 10–16 ms each: a single best of 5 flipped the verdict from run to run (×1.14 / ×0.82), so both sides
    // are taken 3 × REPEATS times, alternating, and compared by best and by median.
    const intoBigMs: number[] = [];
    const intoEmptyMs: number[] = [];
    const firstList: number[] = [];
    const firstSearch: number[] = [];
    const rawIntoBigMs: number[] = [];
    const rawIntoEmptyMs: number[] = [];
    const search: ListRunsQuery = { search: 'no step says this', limit: 50 };
    for (let i = 0; i < 3 * REPEATS; i++) {
      big.prepare("DELETE FROM runs WHERE run_id = 'one-more'").run();
      big.prepare('DELETE FROM import_files').run();
      intoBigMs.push(timed(() => importFile(big, file, { final: true })));
      const empty = openDatabase(path.join(dir, `empty-${i}.db`));
      intoEmptyMs.push(timed(() => importFile(empty, file, { final: true })));
      // The baseline for that ratio: SQLite's own insert of the same 1,000 step rows (as a second run) into each store.
      const rows = (empty.prepare("SELECT * FROM steps WHERE run_id = 'one-more'").raw().all() as unknown[][]).map((r) => ['one-more-raw', ...r.slice(1)]);
      rawIntoBigMs.push(rawInsert(big, rows));
      rawIntoEmptyMs.push(rawInsert(empty, rows));
      empty.close();
      // The import stamped the run in this millisecond; wait one, as a user would, so the catch-up can index it for good.
      const until = Date.now() + 2;
      while (Date.now() < until);
      firstList.push(timed(() => listRuns(big, {})));
      firstSearch.push(timed(() => listRuns(big, search)));
    }
    const steadyList = best(() => listRuns(big, {}));
    const steadySearch = best(() => listRuns(big, search));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [bigBest, emptyBest, bigMedian, emptyMedian] = [Math.min(...intoBigMs), Math.min(...intoEmptyMs), median(intoBigMs), median(intoEmptyMs)];
    lines.push(
      `import of one more 1,000-step run, ${intoBigMs.length} alternating imports each: best ${bigBest.toFixed(1)} ms into this store, ${emptyBest.toFixed(1)} ms into an empty one (×${(bigBest / emptyBest).toFixed(2)}); median ${bigMedian.toFixed(1)} / ${emptyMedian.toFixed(1)} ms (×${(bigMedian / emptyMedian).toFixed(2)}) (goal ≤ ×1: ${bigBest <= emptyBest && bigMedian <= emptyMedian ? 'met by both' : bigBest <= emptyBest || bigMedian <= emptyMedian ? 'met by one of the two' : 'NOT met'})`,
    );
    const [rawBig, rawEmpty] = [Math.min(...rawIntoBigMs), Math.min(...rawIntoEmptyMs)];
    lines.push(
      `  baseline: SQLite's own insert of the same 1,000 step rows (one transaction, one prepared statement), best ${rawBig.toFixed(1)} ms into this store, ${rawEmpty.toFixed(1)} ms into the empty one (×${(rawBig / rawEmpty).toFixed(2)}); median ×${(median(rawIntoBigMs) / median(rawIntoEmptyMs)).toFixed(2)} (the store's B-trees are deeper: every insert into it walks more levels)`,
    );
    lines.push(`after that import, the first list of every run (the import stored its step count): ${median(firstList).toFixed(1)} ms median, next ones ${steadyList.toFixed(1)} ms (+${(median(firstList) - steadyList).toFixed(1)} ms)`);
    lines.push(`after that import, the first search (indexes its 1,000 steps): ${median(firstSearch).toFixed(1)} ms median (${goal(median(firstSearch))}), next ones ${steadySearch.toFixed(1)} ms (+${(median(firstSearch) - steadySearch).toFixed(1)} ms)`);
    small.close();
    return { lines };
  } finally {
    big.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
