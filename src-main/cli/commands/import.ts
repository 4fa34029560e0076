import type { Command } from '../command';
import { EXIT_BAD_INPUT, EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { safeLine } from '../format-text';
import { describeImportProgress, type ImportProgress } from '../../../src-shared/import-progress';
import type { DeferredBlame } from '../../../src-shared/model';
import { AUTO_BLAME_MAX_STEPS } from '../../../src-shared/analysis';

/** Status lines at most this often: a big file reports progress every few thousand spans. */
const PROGRESS_EVERY_MS = 100;

/** A run too large to blame unasked (analysis-service.ts), as `tb import` and the inbox sync of every command say it. */
export function deferredBlameLine(d: DeferredBlame): string {
  const id = safeLine(d.run_id);
  return `${id}: ${d.steps.toLocaleString('en')} steps, not blamed yet (a run of more than ${AUTO_BLAME_MAX_STEPS.toLocaleString('en')} steps is blamed when asked: tb blame ${id})`;
}

/** "importing big.json: reading spans 41% (190 of 463 MB)": what the engine reports of a big file's import. */
export function importProgressLine(p: ImportProgress): string {
  const { name, status } = describeImportProgress(p);
  return `importing ${safeLine(name)}: ${status}`;
}

export const importCommand: Command = {
  name: 'import',
  usage: 'tb import PATH… [--json]',
  summary: 'import trace files or folders (native JSONL, OTLP/JSON, LangChain run trees, chat transcripts)',
  flags: {},
  async run(ctx) {
    if (ctx.args.positional.length === 0) throw new UsageError('needs at least one file or folder');
    const engine = ctx.engine();
    let shownAt = -Infinity;
    const unsubscribe = engine.events.subscribe((event, payload) => {
      if (event !== 'import-progress' || performance.now() - shownAt < PROGRESS_EVERY_MS) return;
      shownAt = performance.now();
      ctx.progress(importProgressLine(payload as ImportProgress));
    });
    let report;
    try {
      report = await callEngine(engine, 'importPaths', { paths: ctx.args.positional });
    } finally {
      unsubscribe();
      ctx.progress(null);
    }
    const failed = report.errors.some((e) => e.level === 'error');
    if (ctx.args.booleans.has('json')) ctx.json(report);
    else {
      for (const f of report.imported) ctx.out(`${safeLine(f.file)}: ${f.runs.length} run${f.runs.length === 1 ? '' : 's'}${f.runs.length ? ` (${f.runs.map(safeLine).join(', ')})` : ''}`);
      for (const d of report.blame_deferred ?? []) ctx.out(deferredBlameLine(d));
    }
    for (const e of report.errors) ctx.err(`${safeLine(e.file)}:${e.line}: ${e.level}: ${safeLine(e.message)}`);
    return failed ? EXIT_BAD_INPUT : EXIT_OK;
  },
};
