import fs from 'node:fs';
import path from 'node:path';
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';

export const exportCommand: Command = {
  name: 'export',
  readsRuns: true,
  usage: 'tb export RUN --format otlp [-o FILE] [--json]',
  summary: 'write a run as OTLP/JSON (GenAI + OpenInference attributes) for Jaeger, Phoenix or Langfuse',
  flags: { values: ['format', 'o', 'output'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id');
    const format = ctx.args.values.format ?? 'otlp';
    if (format !== 'otlp') throw new UsageError('--format must be otlp');
    const exported = await callEngine(ctx.engine(), 'exportRun', { runId, format });
    const outFile = ctx.args.values.o ?? ctx.args.values.output;
    if (!outFile) {
      ctx.content(exported.content);
      return EXIT_OK;
    }
    fs.writeFileSync(path.resolve(outFile), exported.content);
    if (ctx.args.booleans.has('json')) ctx.json({ file: path.resolve(outFile), format });
    else ctx.err(`wrote ${path.resolve(outFile)}`);
    return EXIT_OK;
  },
};
