/**
 * The memory figure of an import: a file imported in a fresh process, streamed
 * or whole-document, whose peak RSS (process.resourceUsage().maxRSS) is the
 * figure, with its CPU and wall times. bench/otlp-large-file.ts and
 * bench/langchain-large-file.ts measure with it.
 *
 * Run as a script, this file is the child: `tsx bench/import-in-child.ts FILE DB stream|whole otlp|langchain`
 * (or its bundle, run by node: ChildRunner).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type { ImportError } from '../src-shared/model';
import { openDatabase } from '../src-main/engine/store/open-database';
import { importWhole } from '../src-main/engine/ingest/import-foreign';
import { importOtlpStreaming } from '../src-main/engine/ingest/otlp/otlp-stream-import';
import { importLangChainStreaming } from '../src-main/engine/ingest/langchain/run-tree-stream-import';

export interface ChildImport {
  maxRssMb: number;
  cpuMs: number;
  wallMs: number;
  steps: number;
  errors: number;
}

type StreamedFormat = 'otlp' | 'langchain';

/** The streamed import of each format, called directly: a file it gives up on fails the bench rather than falling back. */
const STREAMED = { otlp: importOtlpStreaming, langchain: importLangChainStreaming } as const;

/**
 * How the child runs the engine: `bundled`, as `tb` runs it (out/cli/tb.mjs, scripts/build-cli.mjs) and as the app
 * does (electron-vite bundles the engine into its worker): esbuild bundles this file, its packages left to
 * node_modules; or `tsx`, as `tb` runs from a checkout whose sources changed since the bundle was built
 * (bin/tb.mjs: tsx's loader thread and the transpiled sources add ~38 MB to a process's RSS).
 */
export type ChildRunner = 'tsx' | 'bundled';

const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
let bundled: string | null = null;

/**
 * This file bundled, once a process, under node_modules/.cache (so its packages resolve from node_modules; one
 * file, rebuilt by each bench, so an interrupted one leaves nothing behind to pile up). esbuild is loaded here,
 * not imported at the top: the bundled child would load its API too, and that would count in its memory.
 */
function bundledChild(): string {
  if (bundled) return bundled;
  const out = path.join(ROOT, 'node_modules', '.cache', 'traceback-bench', 'import-in-child.mjs');
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  buildSync({ entryPoints: [new URL(import.meta.url).pathname], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'error' });
  return (bundled = out);
}

/** Imports `file` of `format` in a fresh process (streamed or whole-document) and returns its peak RSS and times. */
export function measureImportInChild(file: string, dbFile: string, mode: 'stream' | 'whole', format: StreamedFormat, runner: ChildRunner = 'bundled'): ChildImport | { failed: string } {
  const [command, script] = runner === 'tsx' ? [path.join(ROOT, 'node_modules', '.bin', 'tsx'), new URL(import.meta.url).pathname] : [process.execPath, bundledChild()];
  const r = spawnSync(command, [script, file, dbFile, mode, format], { encoding: 'utf8', maxBuffer: 1e7 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as ChildImport;
  } catch {
    return { failed: (r.stderr || r.stdout || `exit ${r.status} ${r.signal ?? ''}`).trim().split('\n').slice(-3).join(' ') };
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, dbFile, mode, format] = process.argv.slice(2) as [string, string, 'stream' | 'whole', StreamedFormat];
  const db = openDatabase(dbFile);
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const c = process.cpuUsage();
  const t = performance.now();
  const errors: ImportError[] = [];
  if (mode === 'whole') importWhole(db, fd, file, size, format, errors);
  else STREAMED[format](db, fd, file, size, format, errors);
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(c);
  const steps = (db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n;
  db.close();
  const out: ChildImport = { maxRssMb: process.resourceUsage().maxRSS / 1024, cpuMs: (used.user + used.system) / 1000, wallMs, steps, errors: errors.filter((e) => e.level === 'error').length };
  console.log(JSON.stringify(out));
}

/**
 * `tb import FILE` as a user runs it, in a fresh process: the CLI bundled as `npm install` builds it (built here
 * from the current sources into node_modules/.cache, so the figure is of this code), with a fresh home. Its peak RSS
 * is written at exit by a preloaded snippet: the whole command (engine, inbox sync, the import, the refresh after it).
 */
export function measureTbImport(file: string, home: string): { maxRssMb: number; wallMs: number } | { failed: string } {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'traceback-bench', 'cli');
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.mjs'), '--out', dir], { encoding: 'utf8' });
  // A bundle an earlier run left there would be measured as this code's: no figure rather than a wrong one.
  if (build.status !== 0 || !build.stdout.includes('source files bundled')) return { failed: `the CLI bundle was not built: ${(build.stderr || build.stdout).trim().slice(0, 300)}` };
  const preload = path.join(dir, 'report-rss.cjs');
  fs.writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, '\\nTB_MAX_RSS_KB=' + process.resourceUsage().maxRSS + '\\n'));\n");
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, path.join(dir, 'tb.mjs'), 'import', file], { encoding: 'utf8', env: { ...process.env, TRACEBACK_HOME: home }, maxBuffer: 1e7, timeout: 15 * 60_000 });
  const wallMs = performance.now() - t;
  const kb = /TB_MAX_RSS_KB=(\d+)/.exec(r.stderr ?? '')?.[1];
  if (r.status !== 0 || !kb) return { failed: (r.stderr || r.stdout || `exit ${r.status} ${r.signal ?? ''}`).trim().split('\n').slice(-3).join(' ') };
  return { maxRssMb: Number(kb) / 1024, wallMs };
}
