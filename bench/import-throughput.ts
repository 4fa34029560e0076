/**
 * Import throughput: steps/s through the real importer (read, parse,
 * validate, upsert, offsets, errors) next to the raw better-sqlite3 insert
 * rate of exactly the rows it stored, measured in the same run. Each side is
 * the best of REPEATS runs on a fresh database, because this machine is shared
 * and single runs swing by 2×. Goal ≥ 0.6× raw (issue 14).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src-main/engine/store/open-database';
import { importFile } from '../src-main/engine/ingest/import-file';
import { runOwedCheckpoint } from '../src-main/engine/store/bulk-write';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';
import { foldRecords } from '../src-main/engine/ingest/native/fold-records';
import { exportOtlp } from '../src-main/engine/ingest/foreign/index';
import { importWhole } from '../src-main/engine/ingest/import-foreign';
import { duckdbReadJson } from './duckdb-peer';
import { measureTbImport } from './import-in-child';
import { importInChild, writeLargeOtlp } from './otlp-large-file';
import { OtlpSpanStream } from '../src-main/engine/ingest/otlp/otlp-span-stream';

const REPEATS = 5;
/** The OTLP import takes seconds a time: three are enough to find its best. */
const OTLP_REPEATS = 3;
/** Size of the generated file whose import's peak RSS is measured (goal: ≤ 300 MB for 500 MB). */
const OTLP_LARGE_MB = Number(process.env.TB_BENCH_OTLP_MB ?? 500);

/** Wall time and this process's CPU time of `f`, in ms. CPU time barely moves when other processes load the machine. */
function measure(f: () => unknown): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  f();
  const wall = performance.now() - t;
  const used = process.cpuUsage(c);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function keepBest(best: { wall: number; cpu: number }, m: { wall: number; cpu: number }): void {
  best.wall = Math.min(best.wall, m.wall);
  best.cpu = Math.min(best.cpu, m.cpu);
}

export async function benchImport(steps = 50_000): Promise<{ lines: string[]; ratio: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-import-'));
  const file = path.join(dir, 'big.jsonl');
  // Generated in its own scope so none of it is alive while the importer runs.
  (() => fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'bench', steps }))))();
  const sizeMb = fs.statSync(file).size / 1e6;

  // The first import warms the JIT (as the engine's first file would) and yields the rows for the raw insert.
  let rows: unknown[][] = [];
  {
    const db = openDatabase(path.join(dir, 'warm.db'));
    const r = importFile(db, file, { final: true });
    if (r.newErrors.length) throw new Error(`bench import reported errors: ${r.newErrors[0].message}`);
    rows = db.prepare('SELECT * FROM steps ORDER BY idx').raw().all() as unknown[][];
    db.close();
  }
  // Import and raw insert take turns, so a burst of load from other processes hits both sides alike.
  // Neither side's first figure includes copying its WAL into the database file: the import leaves that to the
  // engine's idle time (store/bulk-write.ts); the raw insert's autocheckpoint is switched off for its transaction
  // (SQLite would run it in the commit). That copy is timed apart on both sides, for the second figure.
  const importBest = { wall: Infinity, cpu: Infinity };
  const rawBest = { wall: Infinity, cpu: Infinity };
  const importCheckpointed = { wall: Infinity, cpu: Infinity };
  const rawCheckpointed = { wall: Infinity, cpu: Infinity };
  const plus = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }) => ({ wall: a.wall + b.wall, cpu: a.cpu + b.cpu });
  for (let i = 0; i < REPEATS; i++) {
    const db = openDatabase(path.join(dir, `traces-${i}.db`));
    const t = measure(() => importFile(db, file, { final: true }));
    const tc = measure(() => {
      if (!runOwedCheckpoint(db)) db.pragma('wal_checkpoint(PASSIVE)');
    });
    db.close();
    const rawDb = openDatabase(path.join(dir, `raw-${i}.db`));
    rawDb.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('bench','p','ok',0,0,0)").run();
    const insert = rawDb.prepare(`INSERT INTO steps VALUES (${rows[0].map(() => '?').join(',')})`);
    rawDb.pragma('wal_autocheckpoint = 0');
    const r = measure(() => rawDb.transaction(() => {
      for (const p of rows) insert.run(...p);
    })());
    const rc = measure(() => rawDb.pragma('wal_checkpoint(PASSIVE)'));
    rawDb.close();
    keepBest(importBest, t);
    keepBest(rawBest, r);
    keepBest(importCheckpointed, plus(t, tc));
    keepBest(rawCheckpointed, plus(r, rc));
  }
  const importMs = importBest.wall;
  const rawMs = rawBest.wall;

  // The same run as an OTLP/JSON file (GenAI + OpenInference attributes), through the foreign importer.
  const otlpFile = path.join(dir, 'big.otlp.json');
  (() => fs.writeFileSync(otlpFile, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'bench-otlp', steps }))[0]))))();
  const otlpMb = fs.statSync(otlpFile).size / 1e6;
  // The streaming import (through importFile, as the engine calls it) and the whole-document import it
  // replaced (the same file parsed at once, one transaction) take turns, like the native import and the raw insert.
  const otlpBest = { wall: Infinity, cpu: Infinity };
  const wholeBest = { wall: Infinity, cpu: Infinity };
  // Where the OTLP import's time goes: the raw insert of the rows it stored (its steps carry every span
  // attribute in metadata, ~3× the native rows' bytes), next to the import.
  const otlpRawBest = { wall: Infinity, cpu: Infinity };
  // The floor of this design: the file read and each span JSON.parsed, as the import's first pass does, with no mapping.
  const parseBest = { wall: Infinity, cpu: Infinity };
  let otlpRows: unknown[][] = [];
  let otlpRunRow: unknown[] = [];
  for (let i = 0; i < OTLP_REPEATS; i++) {
    const db = openDatabase(path.join(dir, `otlp-${i}.db`));
    let r: ReturnType<typeof importFile> | undefined;
    keepBest(otlpBest, measure(() => (r = importFile(db, otlpFile, { final: true }))));
    const stored = (db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n;
    if (r!.newErrors.some((e) => e.level === 'error') || stored !== steps) throw new Error(`OTLP bench import stored ${stored} of ${steps} steps`);
    if (i === 0) {
      otlpRows = db.prepare('SELECT * FROM steps ORDER BY idx').raw().all() as unknown[][];
      otlpRunRow = db.prepare('SELECT * FROM runs').raw().get() as unknown[];
    }
    db.close();
    const rawDb = openDatabase(path.join(dir, `otlp-raw-${i}.db`));
    // As on the native side: no checkpoint inside the timed commit (the streamed import leaves its own to idle time).
    rawDb.pragma('wal_autocheckpoint = 0');
    rawDb.prepare(`INSERT INTO runs VALUES (${otlpRunRow.map(() => '?').join(',')})`).run(...otlpRunRow);
    const insert = rawDb.prepare(`INSERT INTO steps VALUES (${otlpRows[0].map(() => '?').join(',')})`);
    keepBest(otlpRawBest, measure(() => rawDb.transaction(() => {
      for (const p of otlpRows) insert.run(...p);
    })()));
    rawDb.close();
    const parseFd = fs.openSync(otlpFile, 'r');
    let spans = 0;
    keepBest(parseBest, measure(() => {
      const stream = new OtlpSpanStream(parseFd, 0, false, [], { resources: new Map(), scopes: new Map() }, true);
      while (stream.next()) spans += 1;
    }));
    fs.closeSync(parseFd);
    if (spans !== steps) throw new Error(`the span stream read ${spans} of ${steps} spans`);
    const wholeDb = openDatabase(path.join(dir, `otlp-whole-${i}.db`));
    wholeDb.pragma('wal_autocheckpoint = 0');
    const fd = fs.openSync(otlpFile, 'r');
    keepBest(wholeBest, measure(() => importWhole(wholeDb, fd, otlpFile, fs.fstatSync(fd).size, 'otlp', [])));
    fs.closeSync(fd);
    wholeDb.close();
  }
  const otlpMs = otlpBest.wall;
  // Peak memory, each in a fresh process: the same file both ways, then a large generated file streamed.
  const rssStream = importInChild(otlpFile, path.join(dir, 'rss-stream.db'), 'stream');
  const rssWhole = importInChild(otlpFile, path.join(dir, 'rss-whole.db'), 'whole');
  const largeFile = path.join(dir, 'large.otlp.json');
  const largeSpans = writeLargeOtlp(largeFile, OTLP_LARGE_MB);
  const largeMb = fs.statSync(largeFile).size / 1e6;
  const rssLarge = importInChild(largeFile, path.join(dir, 'rss-large.db'), 'stream', 'tsx');
  const rssLargeBundled = importInChild(largeFile, path.join(dir, 'rss-large-bundled.db'), 'stream');
  const tbImport = measureTbImport(largeFile, path.join(dir, 'tb-home'));
  fs.rmSync(largeFile, { force: true });
  const rss = (c: typeof rssStream) => ('failed' in c ? `failed (${c.failed})` : `${c.maxRssMb.toFixed(0)} MB`);

  const peer = await duckdbReadJson(otlpFile, dir, OTLP_REPEATS);

  const rawRate = steps / (rawMs / 1000);
  const importRate = steps / (importMs / 1000);
  const ratio = importRate / rawRate;
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    ratio,
    lines: [
      `import: ${steps.toLocaleString('en')} steps (${(steps * 2 + 2).toLocaleString('en')} records, ${sizeMb.toFixed(1)} MB), best of ${REPEATS}: ${importMs.toFixed(0)} ms = ${Math.round(importRate).toLocaleString('en')} steps/s`,
      `raw better-sqlite3 insert of the same rows, one transaction, best of ${REPEATS}: ${rawMs.toFixed(0)} ms = ${Math.round(rawRate).toLocaleString('en')} rows/s`,
      `ratio import/raw: ${ratio.toFixed(2)}× wall, ${(rawBest.cpu / importBest.cpu).toFixed(2)}× CPU time (best of ${REPEATS} each: import ${importBest.cpu.toFixed(0)} ms, raw ${rawBest.cpu.toFixed(0)} ms) (goal ≥ 0.6×)`,
      `  each followed by the checkpoint that copies its WAL into the database file: import ${importCheckpointed.wall.toFixed(0)} ms, raw ${rawCheckpointed.wall.toFixed(0)} ms = ${(rawCheckpointed.wall / importCheckpointed.wall).toFixed(2)}× wall, ${(rawCheckpointed.cpu / importCheckpointed.cpu).toFixed(2)}× CPU time`,
      `OTLP/JSON import of the same run (${otlpMb.toFixed(1)} MB, one document, streamed), best of ${OTLP_REPEATS}: ${otlpMs.toFixed(0)} ms = ${Math.round(steps / (otlpMs / 1000)).toLocaleString('en')} steps/s = ${(rawMs / otlpMs).toFixed(2)}× raw wall, ${(rawBest.cpu / otlpBest.cpu).toFixed(2)}× raw CPU time (import ${otlpBest.cpu.toFixed(0)} ms CPU) (goal ≥ 0.3×)`,
      `  the raw insert of the rows the OTLP import stored (${(otlpRows.reduce((n, row) => n + row.reduce<number>((m, v) => m + (typeof v === 'string' ? v.length : 8), 0), 0) / 1e6).toFixed(1)} MB of values against the native rows' ${(rows.reduce((n, row) => n + row.reduce<number>((m, v) => m + (typeof v === 'string' ? v.length : 8), 0), 0) / 1e6).toFixed(1)} MB), best of ${OTLP_REPEATS}: ${otlpRawBest.wall.toFixed(0)} ms; the import takes ${(otlpMs / otlpRawBest.wall).toFixed(1)}× that (not the goal's baseline, which stays the native rows' insert)`,
      `  the floor of this design, measured here: reading the file and JSON.parsing each span alone (no mapping) ${parseBest.wall.toFixed(0)} ms + the raw insert of the rows the import stores ${otlpRawBest.wall.toFixed(0)} ms = ${(parseBest.wall + otlpRawBest.wall).toFixed(0)} ms = ${(rawMs / (parseBest.wall + otlpRawBest.wall)).toFixed(2)}× raw; the goal (≤ ${(rawMs / 0.3).toFixed(0)} ms) leaves ${(rawMs / 0.3 - parseBest.wall - otlpRawBest.wall).toFixed(0)} ms for mapping the spans, planning the runs and building the rows, which take ${(otlpMs - parseBest.wall - otlpRawBest.wall).toFixed(0)} ms`,
      `  before: the whole-document import of the same file, best of ${OTLP_REPEATS}: ${wholeBest.wall.toFixed(0)} ms = ${(rawMs / wholeBest.wall).toFixed(2)}× raw wall, ${(rawBest.cpu / wholeBest.cpu).toFixed(2)}× raw CPU time (${wholeBest.cpu.toFixed(0)} ms CPU); streamed/whole CPU time ${(otlpBest.cpu / wholeBest.cpu).toFixed(2)}×`,
      `OTLP peak RSS (child process, maxRSS) for the ${otlpMb.toFixed(1)} MB file: streamed ${rss(rssStream)}, whole-document ${rss(rssWhole)}`,
      'failed' in rssLargeBundled
        ? `OTLP peak RSS for a generated ${largeMb.toFixed(0)} MB file: ${rss(rssLargeBundled)} bundled (goal ≤ 300 MB); ${rss(rssLarge)} through tsx`
        : `OTLP peak RSS for a generated ${largeMb.toFixed(0)} MB file (${largeSpans.toLocaleString('en')} spans, one trace), streamed: ${rss(rssLargeBundled)} bundled, as \`tb import\` and the app's engine worker run it (goal ≤ 300 MB); ${rss(rssLarge)} through tsx, as \`tb\` runs from sources changed since its build; ${rssLargeBundled.steps.toLocaleString('en')} steps in ${rssLargeBundled.cpuMs.toFixed(0)} ms CPU, ${rssLargeBundled.wallMs.toFixed(0)} ms wall`,
      'failed' in tbImport
        ? `  \`tb import\` of that file, the whole command: failed (${tbImport.failed})`
        : `  \`tb import\` of that file, the whole command (the bundled CLI, its engine and modules, the inbox sync, the import, the refresh after it): peak RSS ${tbImport.maxRssMb.toFixed(0)} MB (goal ≤ 300 MB), ${(tbImport.wallMs / 1000).toFixed(1)} s wall`,
      'unavailable' in peer
        ? `peer: DuckDB read_json not measured (${peer.unavailable})`
        : `peer: DuckDB ${peer.version} read_json of the same file into a table of ${peer.rows.toLocaleString('en')} span rows, best of ${OTLP_REPEATS}: ${peer.ms.toFixed(0)} ms = ${(steps / (peer.ms / 1000) / rawRate).toFixed(2)}× raw; Traceback's OTLP import takes ${(otlpMs / peer.ms).toFixed(1)}× DuckDB's time`,
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchImport().then((r) => console.log(r.lines.join('\n')));
}
