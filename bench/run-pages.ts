/**
 * The engine's share of opening a big run (issue 14): `getRun` (every step
 * with its payload, as JSON on the wire) next to `getRunSkeleton` plus the
 * payloads of the first screenful of steps (what a paged view needs first),
 * both measured in the same run on the same store. Serialising to JSON is
 * included: every transport sends JSON. TB_BENCH_PAGES_STEPS sets the size
 * (100,000 by default; 1,000,000 shows the run still opens in pages).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src-main/engine/store/open-database';
import { importFile } from '../src-main/engine/ingest/import-file';
import { getRunDetail } from '../src-main/engine/store/read-runs';
import { getRunSkeleton, getStepPayloads } from '../src-main/engine/store/read-run-pages';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';

const REPEATS = 3;
/** Rows a step list shows before scrolling, with margin. */
const FIRST_PAGE = 200;

function best(f: () => number): { ms: number; bytes: number } {
  let ms = Infinity;
  let bytes = 0;
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    bytes = f();
    ms = Math.min(ms, performance.now() - t);
  }
  return { ms, bytes };
}

export async function benchPages(): Promise<{ lines: string[] }> {
  const steps = Number(process.env.TB_BENCH_PAGES_STEPS ?? 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-pages-'));
  try {
    const file = path.join(dir, 'big.jsonl');
    (() => fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'big', steps }))))();
    const db = openDatabase(path.join(dir, 'traces.db'));
    importFile(db, file, { final: true });
    const lines: string[] = [];
    // getRun of a million steps is a string V8 may refuse to build: measured only up to 200,000 steps.
    const whole = steps <= 200_000 ? best(() => JSON.stringify(getRunDetail(db, 'big')).length) : null;
    const paged = best(() => JSON.stringify(getRunSkeleton(db, 'big')).length + JSON.stringify(getStepPayloads(db, 'big', { from: 0, count: FIRST_PAGE })).length);
    const page = best(() => JSON.stringify(getStepPayloads(db, 'big', { from: Math.floor(steps / 2), count: FIRST_PAGE })).length);
    const mb = (b: number) => (b / 1e6).toFixed(1);
    if (whole) lines.push(`${steps.toLocaleString('en')}-step run, getRun as JSON, best of ${REPEATS}: ${whole.ms.toFixed(0)} ms, ${mb(whole.bytes)} MB`);
    lines.push(
      `getRunSkeleton + payloads of the first ${FIRST_PAGE} steps as JSON: ${paged.ms.toFixed(0)} ms, ${mb(paged.bytes)} MB${whole ? ` (×${(paged.ms / whole.ms).toFixed(2)} the time, ×${(paged.bytes / whole.bytes).toFixed(2)} the bytes of getRun)` : ''}`,
      `one more page of ${FIRST_PAGE} payloads from the middle of the run: ${page.ms.toFixed(1)} ms, ${(page.bytes / 1e3).toFixed(0)} kB`,
    );
    db.close();
    return { lines };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
