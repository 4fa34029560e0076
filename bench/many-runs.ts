/**
 * Files of many small runs, each against a baseline in the same run:
 * - OTLP: a document whose every span is a trace of its own (a collector's batch of short requests), against the
 *   same spans as one trace, each imported in a child process: time and peak RSS. A trace used to cost ~27 KB
 *   until the end of the import, and 100,000 of them took 17 minutes and 4 GB.
 * - native: a folder of one-run files (a file a run, as the SDKs write them) against the same runs in one file.
 * - native: `tb import` of N one-step runs (import, then the blame of every run, as the engine stores it), at N
 *   and 4N: linear is ×4. Blaming each run used to scan every stored tool step and every run of its pipeline.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src-main/engine/store/open-database';
import { importFile } from '../src-main/engine/ingest/import-file';
import { importPaths } from '../src-main/engine/ingest/import-paths';
import { createAnalysis } from '../src-main/engine/analysis-service';
import { homePaths } from '../src-main/engine/home';
import { syntheticRunRecords, toJsonl } from '../test/support/synthetic-trace';
import { importInChild, writeLargeOtlp } from './otlp-large-file';

const OTLP_MB = Number(process.env.TB_BENCH_MANY_MB ?? 20);
const NATIVE_RUNS = Number(process.env.TB_BENCH_MANY_RUNS ?? 4000);
const FILE_RUNS = Number(process.env.TB_BENCH_MANY_FILES ?? 2000);

function otlpManyTraces(dir: string): string[] {
  const many = path.join(dir, 'many.otlp.json');
  const one = path.join(dir, 'one.otlp.json');
  const spans = writeLargeOtlp(many, OTLP_MB, true);
  writeLargeOtlp(one, OTLP_MB, false);
  const a = importInChild(many, path.join(dir, 'many.db'), 'stream');
  const b = importInChild(one, path.join(dir, 'one.db'), 'stream');
  if ('failed' in a || 'failed' in b) return [`OTLP of ${spans.toLocaleString('en')} one-span traces: failed (${'failed' in a ? a.failed : ''} ${'failed' in b ? b.failed : ''})`];
  return [
    `OTLP document of ${spans.toLocaleString('en')} one-span traces (${OTLP_MB} MB), streamed in a child: ${a.cpuMs.toFixed(0)} ms CPU, peak RSS ${a.maxRssMb.toFixed(0)} MB; the same spans as one trace: ${b.cpuMs.toFixed(0)} ms CPU, ${b.maxRssMb.toFixed(0)} MB (×${(a.cpuMs / b.cpuMs).toFixed(2)} time, ×${(a.maxRssMb / b.maxRssMb).toFixed(2)} memory; no goal)`,
  ];
}

/** Import and blame of `runs` one-step runs, the way `tb import` stores them; ms of each. */
function importAndBlame(dir: string, runs: number): { importMs: number; blameMs: number } {
  const file = path.join(dir, `runs-${runs}.jsonl`);
  const records = Array.from({ length: runs }, (_, i) =>
    syntheticRunRecords({ runId: `r-${i}`, steps: 3, pipeline: `pipeline-${i % 20}`, failAt: i % 7 === 0 ? 2 : undefined, startTs: 1_700_000_000_000 + i * 1000 }),
  ).flat();
  fs.writeFileSync(file, toJsonl(records));
  const home = path.join(dir, `home-${runs}`);
  fs.mkdirSync(home);
  const db = openDatabase(path.join(home, 'traces.db'));
  let t = performance.now();
  const r = importFile(db, file, { final: true });
  const importMs = performance.now() - t;
  t = performance.now();
  createAnalysis(db, homePaths(home)).refresh(r.changedRuns);
  const blameMs = performance.now() - t;
  db.close();
  return { importMs, blameMs };
}

function nativeManyRuns(dir: string): string[] {
  const small = importAndBlame(dir, NATIVE_RUNS);
  const big = importAndBlame(dir, NATIVE_RUNS * 4);
  const growth = (big.importMs + big.blameMs) / (small.importMs + small.blameMs);
  return [
    `native file of ${(NATIVE_RUNS * 4).toLocaleString('en')} three-step runs, import then blame of each: ${big.importMs.toFixed(0)} + ${big.blameMs.toFixed(0)} ms; of ${NATIVE_RUNS.toLocaleString('en')}: ${small.importMs.toFixed(0)} + ${small.blameMs.toFixed(0)} ms (growth ×${growth.toFixed(1)} for ×4 the runs; linear = ×4; no goal)`,
  ];
}

/**
 * A folder of one-run files, as the SDKs write them (a file a run), imported as `tb import FOLDER` does, against
 * the same runs in one file: the cost of a file. Best of 3 each, alternating, on fresh stores.
 */
function nativeManyFiles(dir: string): string[] {
  const folder = path.join(dir, 'run-files');
  fs.mkdirSync(folder);
  const runs = Array.from({ length: FILE_RUNS }, (_, i) => syntheticRunRecords({ runId: `file-${i}`, steps: 3, pipeline: `pipeline-${i % 5}`, startTs: 1_700_000_000_000 + i * 1000 }));
  // Written a minute ago, as an inbox is when the app starts or a command syncs it.
  const then = new Date(Date.now() - 60_000);
  runs.forEach((records, i) => {
    const file = path.join(folder, `run-${i}.jsonl`);
    fs.writeFileSync(file, toJsonl(records));
    fs.utimesSync(file, then, then);
  });
  const oneFile = path.join(dir, 'all-runs.jsonl');
  fs.writeFileSync(oneFile, toJsonl(runs.flat()));
  let files = Infinity;
  let again = Infinity;
  let one = Infinity;
  for (let i = 0; i < 3; i++) {
    const a = openDatabase(path.join(dir, `files-${i}.db`));
    let t = performance.now();
    const outcome = importPaths(a, [folder]);
    files = Math.min(files, performance.now() - t);
    t = performance.now();
    importPaths(a, [folder], { final: false, skipUnchanged: true });
    again = Math.min(again, performance.now() - t);
    a.close();
    if (outcome.errors.length) throw new Error(`many-files bench: ${outcome.errors[0].message}`);
    const b = openDatabase(path.join(dir, `one-${i}.db`));
    t = performance.now();
    importFile(b, oneFile, { final: true });
    one = Math.min(one, performance.now() - t);
    b.close();
  }
  return [
    `native folder of ${FILE_RUNS.toLocaleString('en')} one-run files (three steps each, as the SDKs write them), \`tb import FOLDER\`, best of 3: ${files.toFixed(0)} ms = ${((files / FILE_RUNS) * 1000).toFixed(0)} µs a file; the same runs in one file: ${one.toFixed(0)} ms (×${(files / one).toFixed(1)}; no goal); the folder looked at again, nothing written since (what each tb command does to the inbox): ${again.toFixed(0)} ms`,
  ];
}

export function benchManyRuns(): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-many-'));
  try {
    return [...otlpManyTraces(dir), ...nativeManyRuns(dir), ...nativeManyFiles(dir)];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(benchManyRuns().join('\n'));
