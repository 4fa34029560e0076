import type { Command } from '../command';
import { EXIT_BAD_INPUT, EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { safeLine } from '../format-text';

export const importCommand: Command = {
  name: 'import',
  usage: 'tb import PATH… [--json]',
  summary: 'import trace files or folders (native JSONL, OTLP/JSON, LangChain run trees, chat transcripts)',
  flags: {},
  async run(ctx) {
    if (ctx.args.positional.length === 0) throw new UsageError('needs at least one file or folder');
    const report = await callEngine(ctx.engine(), 'importPaths', { paths: ctx.args.positional });
    const failed = report.errors.some((e) => e.level === 'error');
    if (ctx.args.booleans.has('json')) ctx.json(report);
    else {
      for (const f of report.imported) ctx.out(`${safeLine(f.file)}: ${f.runs.length} run${f.runs.length === 1 ? '' : 's'}${f.runs.length ? ` (${f.runs.map(safeLine).join(', ')})` : ''}`);
    }
    for (const e of report.errors) ctx.err(`${safeLine(e.file)}:${e.line}: ${e.level}: ${safeLine(e.message)}`);
    return failed ? EXIT_BAD_INPUT : EXIT_OK;
  },
};
