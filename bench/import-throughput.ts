/**
 * Import throughput: steps/s through the real importer (parse, validate,
 * upsert, offsets, errors) next to the raw better-sqlite3 insert rate of the
 * same step rows measured in the same run. Goal ≥ 0.5× raw.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src-main/engine/store/open-database';
import { importFile } from '../src-main/engine/importer/import-file';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';

export async function benchImport(steps = 100_000): Promise<{ lines: string[]; ratio: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-import-'));
  const file = path.join(dir, 'big.jsonl');
  // Generated in its own scope so none of it is alive while the importer runs.
  (() => fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'bench', steps }))))();
  const sizeMb = fs.statSync(file).size / 1e6;

  // The importer first, on a fresh heap.
  const db = openDatabase(path.join(dir, 'traces.db'));
  const t1 = performance.now();
  const r = importFile(db, file, { final: true });
  const importMs = performance.now() - t1;
  if (r.newErrors.length) throw new Error(`bench import reported errors: ${r.newErrors[0].message}`);

  // Baseline: exactly the step rows the importer stored, inserted raw in one transaction.
  const rows = db.prepare('SELECT * FROM steps ORDER BY idx').raw().all() as unknown[][];
  db.close();
  const rawDb = openDatabase(path.join(dir, 'raw.db'));
  rawDb.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('bench','p','ok',0,0,0)").run();
  const insert = rawDb.prepare(`INSERT INTO steps VALUES (${rows[0].map(() => '?').join(',')})`);
  const t0 = performance.now();
  rawDb.transaction(() => {
    for (const p of rows) insert.run(...p);
  })();
  const rawMs = performance.now() - t0;
  rawDb.close();

  const rawRate = steps / (rawMs / 1000);
  const importRate = steps / (importMs / 1000);
  const ratio = importRate / rawRate;
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    ratio,
    lines: [
      `import: ${steps.toLocaleString('en')} steps (${(steps * 2 + 2).toLocaleString('en')} records, ${sizeMb.toFixed(1)} MB) in ${importMs.toFixed(0)} ms = ${Math.round(importRate).toLocaleString('en')} steps/s`,
      `raw better-sqlite3 insert of the same rows: ${rawMs.toFixed(0)} ms = ${Math.round(rawRate).toLocaleString('en')} rows/s`,
      `ratio import/raw: ${ratio.toFixed(2)}× (goal ≥ 0.5×)`,
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchImport().then((r) => console.log(r.lines.join('\n')));
}
