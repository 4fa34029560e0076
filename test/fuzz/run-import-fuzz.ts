/**
 * Runs the importer over the seeded fuzz corpus (trace-mutations.ts) and
 * counts what matters: crashes (importFile threw), hangs (a file took longer
 * than HANG_MS), good native records lost, bad native lines not reported
 * with their line, and problems that do not name their file.
 *
 *   npx tsx test/fuzz/run-import-fuzz.ts [--files 10000] [--seed 12]
 *
 * CI runs a small corpus through import-fuzz.test.ts (TB_FUZZ_FILES raises it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Db } from '../../src-main/engine/store/open-database';
import { importFile } from '../../src-main/engine/ingest/import-file';
import { getRunDetail } from '../../src-main/engine/store/read-runs';
import { fuzzCase, type FuzzCase, type FuzzFormat, type GoodLine } from './trace-mutations';

/** A file that takes longer than this to import counts as a hang (the largest corpus file is < 1 MB). */
export const HANG_MS = 10_000;

export interface FuzzFailure {
  index: number;
  file: string;
  mutation: string;
  problem: string;
}

export interface FuzzReport {
  seed: number;
  files: number;
  byFormat: Record<FuzzFormat, number>;
  byKind: Record<FuzzCase['kind'], number>;
  crashes: number;
  hangs: number;
  goodRecordsChecked: number;
  goodRecordsLost: number;
  badLinesChecked: number;
  badLinesUnreported: number;
  problemsReported: number;
  problemsWithoutFileOrLine: number;
  slowestMs: number;
  totalMs: number;
  failures: FuzzFailure[];
}

function goodLineKept(db: Db, g: GoodLine): boolean {
  switch (g.kind) {
    case 'run-start':
      return (db.prepare('SELECT pipeline FROM runs WHERE run_id = ?').get(g.run_id) as { pipeline: string } | undefined)?.pipeline === g.pipeline;
    case 'step-start':
      return (db.prepare('SELECT name FROM steps WHERE run_id = ? AND step_id = ?').get(g.run_id, g.step_id) as { name: string } | undefined)?.name === g.name;
    case 'step-end':
      return (db.prepare('SELECT status FROM steps WHERE run_id = ? AND step_id = ?').get(g.run_id, g.step_id) as { status: string } | undefined)?.status === g.status;
    case 'verdict': {
      const row = db.prepare('SELECT verdict FROM runs WHERE run_id = ?').get(g.run_id) as { verdict: string | null } | undefined;
      return row?.verdict != null && (JSON.parse(row.verdict) as { pass: boolean }).pass === g.pass;
    }
    default:
      return db.prepare('SELECT 1 FROM runs WHERE run_id = ?').get(g.run_id) !== undefined;
  }
}

export function runImportFuzz(opts: { seed: number; files: number; dir?: string; onProgress?: (done: number) => void }): FuzzReport {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tb-import-fuzz-'));
  const filesDir = path.join(dir, 'files');
  fs.mkdirSync(filesDir, { recursive: true });
  const db = openDatabase(path.join(dir, 'traces.db'));
  const report: FuzzReport = {
    seed: opts.seed,
    files: 0,
    byFormat: { native: 0, 'otlp-json': 0, 'otlp-jsonl': 0, 'langchain-tree': 0, 'langchain-flat': 0, 'chat-transcript': 0 },
    byKind: { lines: 0, bytes: 0, structure: 0 },
    crashes: 0,
    hangs: 0,
    goodRecordsChecked: 0,
    goodRecordsLost: 0,
    badLinesChecked: 0,
    badLinesUnreported: 0,
    problemsReported: 0,
    problemsWithoutFileOrLine: 0,
    slowestMs: 0,
    totalMs: 0,
    failures: [],
  };
  const fail = (c: FuzzCase, file: string, problem: string) => {
    if (report.failures.length < 50) report.failures.push({ index: c.index, file, mutation: c.mutation, problem });
  };
  // Any level: a cut last line without newline is (rightly) a warning that it may still be completed.
  const errorLines = db.prepare(`SELECT DISTINCT line FROM import_errors WHERE path = ?`);
  try {
    for (let i = 0; i < opts.files; i++) {
      const c = fuzzCase(opts.seed, i);
      const file = path.join(filesDir, c.name);
      fs.writeFileSync(file, c.bytes);
      report.files += 1;
      report.byFormat[c.format] += 1;
      report.byKind[c.kind] += 1;
      const t0 = performance.now();
      let result: ReturnType<typeof importFile>;
      try {
        result = importFile(db, file, { final: true });
        for (const id of result.runs) getRunDetail(db, id);
      } catch (err) {
        report.crashes += 1;
        fail(c, file, `threw: ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
        continue;
      }
      const ms = performance.now() - t0;
      report.totalMs += ms;
      report.slowestMs = Math.max(report.slowestMs, ms);
      if (ms > HANG_MS) {
        report.hangs += 1;
        fail(c, file, `took ${Math.round(ms)} ms`);
      }
      report.problemsReported += result.newErrors.length;
      for (const e of result.newErrors) {
        if (e.file !== file || !Number.isInteger(e.line) || e.line < 0) {
          report.problemsWithoutFileOrLine += 1;
          fail(c, file, `a problem without its file or line: ${JSON.stringify(e).slice(0, 200)}`);
        }
      }
      if (c.kind === 'lines') {
        for (const [line, g] of c.goodLines!) {
          report.goodRecordsChecked += 1;
          if (!goodLineKept(db, g)) {
            report.goodRecordsLost += 1;
            fail(c, file, `good line ${line} (${g.kind}) was not kept`);
          }
        }
        const reported = new Set((errorLines.all(file) as { line: number }[]).map((r) => r.line));
        for (const line of c.badLines!) {
          report.badLinesChecked += 1;
          if (!reported.has(line)) {
            report.badLinesUnreported += 1;
            fail(c, file, `bad line ${line} was not reported with its line number`);
          }
        }
      }
      // Keep the disk small: a file's problems are in the database; the file itself is reproducible from its seed.
      fs.rmSync(file, { force: true });
      opts.onProgress?.(i + 1);
    }
  } finally {
    db.close();
    if (!opts.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

export function summarize(r: FuzzReport): string {
  const formats = Object.entries(r.byFormat).map(([k, v]) => `${k} ${v}`).join(', ');
  return [
    `import fuzz (seed ${r.seed}): ${r.files} files [${formats}] [lines ${r.byKind.lines}, bytes ${r.byKind.bytes}, structure ${r.byKind.structure}]`,
    `  crashes ${r.crashes}, hangs ${r.hangs} (> ${HANG_MS} ms; slowest ${Math.round(r.slowestMs)} ms, total ${Math.round(r.totalMs / 1000)} s)`,
    `  good native records kept ${r.goodRecordsChecked - r.goodRecordsLost}/${r.goodRecordsChecked}, bad lines reported with their line ${r.badLinesChecked - r.badLinesUnreported}/${r.badLinesChecked}`,
    `  problems reported ${r.problemsReported}, without file or line ${r.problemsWithoutFileOrLine}`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? dflt : Number(process.argv[i + 1]);
  };
  const files = arg('files', 10_000);
  const report = runImportFuzz({
    seed: arg('seed', 12),
    files,
    onProgress: (n) => {
      if (n % 1000 === 0) process.stderr.write(`${n}/${files}\n`);
    },
  });
  console.log(summarize(report));
  for (const f of report.failures) console.log(`  case ${f.index} (${f.mutation}): ${f.problem}`);
  process.exitCode = report.crashes + report.hangs + report.goodRecordsLost + report.badLinesUnreported + report.problemsWithoutFileOrLine > 0 ? 1 : 0;
}
